import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'
import { EVERYTHING } from '../integration/mcp/fixtures'

/** Brings the settings' MCP section (or one of its parts) to the top of the page for a steady picture. */
const scrollTo = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => el.scrollIntoView({ block: 'start' }))

// MCP servers in Chromium against the real web host: Settings adds an app-level stdio server (the real
// server-everything from npm), tests it in the project's sandbox and lists its tools, shows a server that does not
// start; the project's dialog lists its .mcp.json server and a switch turns it off for good.
describe('MCP servers in Chromium', { timeout: 180_000 }, () => {
  let session: AppSession
  beforeAll(async () => {
    session = await startAppSession('mcp-app', {
      '.mcp.json': `${JSON.stringify({ mcpServers: { 'project-tools': { command: 'node', args: [EVERYTHING, 'stdio'] } } }, null, 2)}\n`,
      'index.html': '<h1>hi</h1>\n',
    })
  })
  afterAll(() => session?.close())

  it('explains .mcp.json in the dialog of a project without servers', async () => {
    const { page, host, dir, call } = session
    const plain = join(dir, '..', 'plain')
    mkdirSync(plain)
    const opened = await call('projects.open', { path: plain })
    expect(opened.ok).toBe(true)
    await page.goto(`${host.origin}/#/project/${String((opened.value as { id: number }).id)}`)
    await page.getByRole('button', { name: 'MCP servers' }).click()
    const dialog = page.getByRole('dialog', { name: 'MCP servers' })
    await dialog.getByText('No MCP servers for this project').waitFor()
    await dialog.getByText(/lists its own in a file called \.mcp\.json at its root/).waitFor()
    await shootThemes(page, 'mcp-project-empty')
    // The MCP project is the one opened last again: Settings tests run in its sandbox.
    expect((await call('projects.open', { path: dir })).ok).toBe(true)
  })

  it('adds an app-level stdio server in Settings, tests it and sees its tools; a broken one says why', async () => {
    const { page, host } = session
    await page.goto(`${host.origin}/#/settings`)
    const form = page.getByRole('form', { name: 'Add an MCP server' })
    await page.getByText('Tests run in the sandbox of mcp-app, the project opened last.').waitFor()

    // The project's .mcp.json server is a stranger: exactly what it would run, and Approve.
    const own = page
      .getByRole('list', { name: 'Project MCP servers' })
      .getByRole('listitem', { name: 'project-tools' })
    await own.getByText('Waits for your approval').waitFor()
    await own.getByText(`node ${EVERYTHING} stdio`).waitFor()
    await own.getByText('Secrets from the vault').waitFor()
    await scrollTo(page, '#mcp-heading')
    await shootThemes(page, 'mcp-approval-waiting')
    expect(
      await session.call('mcp.test', { projectId: session.projectId, server: 'project-tools' }),
    ).toMatchObject({
      value: { ok: false, message: expect.stringMatching(/waits for your approval/) },
    })
    await own.getByRole('button', { name: 'Approve' }).click()
    await own.getByText('Approved', { exact: true }).waitFor()
    await own.getByRole('button', { name: 'Revoke' }).waitFor()
    expect(await own.getByText(`node ${EVERYTHING} stdio`).count()).toBe(0)
    await scrollTo(page, '#mcp-heading')
    await shootThemes(page, 'mcp-approval-approved')
    await form.getByLabel('Name', { exact: true }).fill('everything')
    await form.getByLabel('Command').fill('node')
    await form.getByLabel(/Arguments/).fill(`${EVERYTHING}\nstdio`)
    await form.getByLabel(/Environment/).fill('DEMO_TOKEN=${DEMO_SECRET}')
    await form.getByRole('button', { name: 'Add server' }).click()
    await form.getByText('Added everything.').waitFor()
    const list = page.getByRole('list', { name: 'App-level MCP servers' })
    const row = list.getByRole('listitem', { name: 'everything' })
    await row.getByText('Sandboxed (stdio)').waitFor()
    await row.getByText('Environment: DEMO_TOKEN (values kept in the vault)').waitFor()
    // A ${NAME} placeholder: the card asks for the secret, which goes to the vault and is never shown back.
    const secret = row.getByLabel('Secret DEMO_SECRET')
    await secret.waitFor()
    await scrollTo(page, '#mcp-heading')
    await shootThemes(page, 'mcp-secret-needed')
    await secret.fill('not-shown-again-42')
    await row.getByRole('button', { name: 'Save secret' }).click()
    await secret.waitFor({ state: 'detached' })
    expect(await page.content()).not.toContain('not-shown-again-42')
    // The project's own .mcp.json server is not an app-level one.
    expect(await list.getByRole('listitem').count()).toBe(1)
    await scrollTo(page, '#mcp-heading')
    await shootThemes(page, 'mcp-settings-list')

    await row.getByRole('button', { name: 'Test' }).click()
    const tools = row.getByRole('list', { name: 'Tools of everything' })
    await tools.waitFor({ timeout: 60_000 })
    await tools.getByText('echo', { exact: true }).waitFor()
    await expect.poll(() => row.getByTestId('mcp-test-result').textContent()).toMatch(/^Started\. \d+ tools:/)
    await scrollTo(page, '#mcp-heading')
    await shootThemes(page, 'mcp-test-tools')

    // Inline validation: a remote server without a proper address.
    await form.getByRole('radio', { name: 'A remote server (http)' }).click()
    await form.getByLabel('Name', { exact: true }).fill('everything')
    await form.getByLabel('Address').fill('mcp.example.com')
    await form.getByRole('button', { name: 'Add server' }).click()
    await form.getByText('There is already a server called “everything”.').waitFor()
    await form.getByText('Enter the server’s address, starting with https:// (or http://).').waitFor()
    await scrollTo(page, '[aria-label="Add an MCP server"]')
    await shootThemes(page, 'mcp-add-errors')
    await form.getByRole('radio', { name: 'A program on this machine (stdio)' }).click()

    // A server whose program is not there: the test says so, and nothing else breaks.
    await form.getByLabel('Name', { exact: true }).fill('broken')
    await form.getByLabel('Command').fill('no-such-mcp-program')
    await form.getByLabel(/Arguments/).fill('')
    await form.getByLabel(/Environment/).fill('')
    await form.getByRole('button', { name: 'Add server' }).click()
    const broken = list.getByRole('listitem', { name: 'broken' })
    await broken.getByRole('button', { name: 'Test' }).click()
    const failed = broken.getByTestId('mcp-test-result')
    await failed.waitFor({ timeout: 60_000 })
    await expect.poll(() => failed.textContent()).toMatch(/^It did not start: .+/)
    await scrollTo(page, '[aria-label="broken"]')
    await shootThemes(page, 'mcp-test-failed')

    // Remove asks first; the server is gone after confirming.
    await broken.getByRole('button', { name: 'Remove' }).click()
    const confirm = page.getByRole('alertdialog', { name: 'Remove the MCP server “broken”?' })
    await confirm.getByRole('button', { name: 'Remove' }).click()
    await broken.waitFor({ state: 'detached' })
    const listed = await session.call('mcp.list', { projectId: session.projectId })
    expect((listed.value as { servers: { name: string }[] }).servers.map((s) => s.name)).toEqual([
      'project-tools',
      'everything',
    ])
  })

  it("lists the project's .mcp.json server in its dialog; switched off it stays off after a reload", async () => {
    const { page, host, projectId, dir } = session
    await page.goto(`${host.origin}/#/project/${projectId}`)
    await page.getByRole('button', { name: 'MCP servers' }).click()
    let dialog = page.getByRole('dialog', { name: 'MCP servers' })
    const own = dialog.getByRole('switch', { name: 'project-tools' })
    await expect.poll(() => own.isChecked()).toBe(true)
    await expect.poll(() => dialog.getByRole('switch', { name: 'everything' }).isChecked()).toBe(true)
    await own.click()
    await expect.poll(() => own.isChecked()).toBe(false)
    await expect
      .poll(() => JSON.parse(readFileSync(join(dir, '.ralph', 'config.json'), 'utf8')).mcp?.disabled)
      .toEqual(['project-tools'])
    await dialog.getByText('off: the model does not see it').waitFor()
    await shootThemes(page, 'mcp-project-dialog')

    await page.reload()
    await page.getByRole('button', { name: 'MCP servers' }).click()
    dialog = page.getByRole('dialog', { name: 'MCP servers' })
    await dialog.getByRole('switch', { name: 'everything' }).waitFor()
    expect(await dialog.getByRole('switch', { name: 'project-tools' }).isChecked()).toBe(false)
    expect(await dialog.getByRole('switch', { name: 'everything' }).isChecked()).toBe(true)
  })
})
