import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAnthropicServer, type AnthropicServer } from '../fixtures/wire/anthropicServer'
import { startResponsesServer, type ResponsesServer } from '../fixtures/wire/responsesServer'
import { SCREENSHOTS } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'
import { makeTempDir } from '../helpers/tempDir'
import { eightFlavors, flavorPlan, flavors, flavorsFile } from '../integration/loop/fixtures'
import { parsed } from '../integration/loop/harness'

// A task card from each agent engine in Chromium against the real web host: the REAL Claude Code and Codex CLIs
// (node_modules/.bin on the host's PATH) run inside Ralph's sandbox against the wire-format fakes of their
// providers, while Ralph's own calls (the parse) go to the fake LLM. The card shows the engine's work as it shows
// a built-in task's: iterations, tool calls with Ralph's names, the stepper, the gates, Complete and the cost, and
// says which engine ran it. Without the CLIs on PATH the task fails with the install hint and a way to Settings.
const BIN = resolve(__dirname, '../../node_modules/.bin')
/** Real CLIs starting inside bubblewrap on a busy 2-core machine: generous budgets. */
const TASK_MS = 240_000
const CODEX_KEY = 'sk-ralph-codex-test'

const MARKERS =
  '{/* TASK-1 [ADD]: 2 nighttime flavors (Moonlit Calm, Deep Rest) */}\n          {/* EXISTING 8 flavors PRESERVED */}'

const TASK = parsed({
  type: 'mutation',
  title: 'Two night flavors',
  requirements: [{ marker: 'ADD', description: '2 nighttime flavors', count: 2 }],
  scope: { preserve: ['the 8 existing flavors'], affectedFiles: ['src/flavors.ts'] },
})

/**
 * A locator's screenshot in light and dark, once the theme (and its colour transitions) has settled; the window
 * made tall enough for the whole of it (a card with its iterations open is taller than a screen).
 */
async function shootBoth(page: Page, target: Locator, name: string): Promise<void> {
  const box = await target.boundingBox()
  const viewport = page.viewportSize()!
  // Room for the header above the chat and the composer below it.
  if (box && box.height + 600 > viewport.height)
    await page.setViewportSize({ width: viewport.width, height: Math.ceil(box.height) + 600 })
  await target.evaluate((el) => el.scrollIntoView({ block: 'start' }))
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    await page.locator(`html[data-theme="${scheme}"]`).waitFor({ state: 'attached' })
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => resolve(null)))')
    await page.evaluate(
      'Promise.all(document.getAnimations().filter((a) => a instanceof CSSTransition).map((a) => a.finished.catch(() => null)))',
    )
    await target.screenshot({ path: join(SCREENSHOTS, `${name}-${scheme}.png`) })
  }
  await page.emulateMedia({ colorScheme: 'light' })
  await page.setViewportSize(viewport)
}

/** The flavors project: eight flavors and a plan without the task's markers yet. */
function seedFlavors(dir: string): void {
  mkdirSync(join(dir, 'src'), { recursive: true })
  mkdirSync(join(dir, '.ralph'), { recursive: true })
  writeFileSync(join(dir, 'src/flavors.ts'), eightFlavors)
  writeFileSync(join(dir, '.ralph/plan.tsx'), flavorPlan(''))
}

async function send(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' })
  await box.fill(text)
  await box.press('Control+Enter')
}

/** Opens the card's iterations (a finished card shows them collapsed) and each iteration in it. */
async function openIterations(card: Locator): Promise<Locator> {
  const iterations = card.getByRole('region', { name: 'Iterations' })
  const toggle = iterations.getByRole('button', { name: /^\d+ iterations? ·/ })
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click()
  const heads = iterations.getByRole('button', { name: /^Iteration \d+/ })
  await heads.first().waitFor()
  for (const head of await heads.all())
    if ((await head.getAttribute('aria-expanded')) !== 'true') await head.click()
  return iterations
}

/** What every engine's finished card shows as a built-in task's card does. */
async function expectFinishedCard(card: Locator): Promise<Locator> {
  // A failed card ends the wait at once, with what it says (a wait for Complete alone reads as a stall).
  await card
    .getByText(/^(Complete|Failed)$/)
    .first()
    .waitFor({ timeout: TASK_MS })
  if (await card.getByText('Failed', { exact: true }).first().isVisible())
    throw new Error(`the task failed: ${await card.textContent()}`)
  const steps = card.getByRole('list', { name: 'Phases' })
  expect(await steps.getByRole('listitem').allTextContents()).toEqual([
    'Parse',
    'Plan',
    'Build',
    'Gates',
    'Snapshot',
  ])
  const gates = card.getByRole('list', { name: 'Gate results' })
  await gates.waitFor()
  expect(await gates.locator('.gate-word').count()).toBeGreaterThan(0)
  expect(await card.locator('.task-card-meta').textContent()).toContain('2 iterations')
  return openIterations(card)
}

describe('a task card from each agent engine', { timeout: 2 * TASK_MS + 120_000 }, () => {
  let anthropic: AnthropicServer
  let responses: ResponsesServer
  let home: ReturnType<typeof makeTempDir>
  let session: AppSession
  let page: Page

  beforeAll(async () => {
    anthropic = await startAnthropicServer()
    responses = await startResponsesServer({ apiKey: CODEX_KEY })
    responses.fallback = { kind: 'text', text: 'Nothing more to do.' }
    // The user's home: Codex's own config.toml with a provider for the Responses fake (the runner copies it into
    // each session's private home).
    home = makeTempDir('ralph-engcard-home-')
    mkdirSync(join(home.path, '.codex'))
    writeFileSync(
      join(home.path, '.codex/config.toml'),
      [
        'model = "gpt-5.5"',
        'model_provider = "ralphfake"',
        '',
        '[model_providers.ralphfake]',
        'name = "Ralph test fake"',
        `base_url = "${responses.baseUrl}"`,
        'wire_api = "responses"',
        'env_key = "CODEX_API_KEY"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        'stream_idle_timeout_ms = 60000',
        '',
      ].join('\n'),
    )
    session = await startAppSession(
      'claude-flavors',
      {},
      {
        PATH: `${BIN}:/usr/bin:/bin`,
        HOME: home.path,
        ANTHROPIC_BASE_URL: anthropic.url,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        CODEX_API_KEY: CODEX_KEY,
      },
      'node',
    )
    page = session.page
  })

  afterAll(async () => {
    await session?.close()
    await anthropic?.close()
    await responses?.close()
    home?.cleanup()
  })

  it('Claude Code (chosen in the header’s dialog): Read, Write as write_file diffs, mark_complete, its own cost', async () => {
    const { host, projectId, dir } = session
    seedFlavors(dir)
    const abs = (rel: string) => join(dir, rel)
    session.llm.enqueue(TASK)
    anthropic.enqueue(
      // Iteration 1 (PLAN): Claude Code reads the plan, then writes it with the task's markers.
      { kind: 'tools', calls: [{ name: 'Read', arguments: { file_path: abs('.ralph/plan.tsx') } }] },
      {
        kind: 'tools',
        calls: [
          { name: 'Write', arguments: { file_path: abs('.ralph/plan.tsx'), content: flavorPlan(MARKERS) } },
        ],
      },
      { kind: 'text', text: 'Plan updated.' },
      // Iteration 2 (BUILD): a check, the code, then Ralph's mark_complete over MCP.
      { kind: 'tools', calls: [{ name: 'Read', arguments: { file_path: abs('src/flavors.ts') } }] },
      {
        kind: 'tools',
        calls: [
          { name: 'Bash', arguments: { command: 'grep -c kick src/flavors.ts', description: 'Count' } },
        ],
      },
      {
        kind: 'tools',
        calls: [
          {
            name: 'Write',
            arguments: { file_path: abs('src/flavors.ts'), content: flavorsFile(flavors.added) },
          },
        ],
      },
      {
        kind: 'tools',
        calls: [
          {
            name: 'mcp__ralph__mark_complete',
            arguments: { summary: 'Added Moonlit Calm and Deep Rest after the 8 flavors.' },
          },
        ],
      },
      { kind: 'text', text: 'Done.' },
    )
    await page.goto(`${host.origin}/#/project/${projectId}`)
    await page.getByRole('button', { name: 'Engine: Built-in' }).click()
    const dialog = page.getByRole('dialog', { name: 'Engine' })
    await dialog.getByText('2.1.328').waitFor()
    await dialog
      .getByRole('radiogroup', { name: 'Engine' })
      .getByRole('radio', { name: 'Claude Code' })
      .check()
    await dialog.getByRole('button', { name: 'Save engine' }).click()
    await dialog.getByText('Saved: this project’s next tasks run with Claude Code.').waitFor()
    await page.keyboard.press('Escape')
    await page.getByRole('button', { name: 'Engine: Claude Code 2.1.328' }).waitFor()

    await send(page, 'add 2 more drinks for nighttime')
    const card = page
      .getByRole('log', { name: 'Conversation' })
      .getByRole('article', { name: 'Task 1: Two night flavors' })
    const iterations = await expectFinishedCard(card)
    const write = iterations.getByRole('button', { name: /write_file/ })
    await expect.poll(() => write.count()).toBe(2)
    expect(await write.nth(0).textContent()).toMatch(/^write_file\+14 −0\.ralph\/plan\.tsx/)
    expect(await write.nth(1).textContent()).toMatch(/^write_file\+12 −0src\/flavors\.ts/)
    await iterations
      .getByRole('button', { name: /read_file/ })
      .first()
      .waitFor()
    expect(await iterations.getByRole('button', { name: /run_command/ }).textContent()).toBe(
      'run_commandgrep -c kick src/flavors.ts',
    )
    await iterations.getByRole('button', { name: /mark_complete/ }).waitFor()
    // Which engine ran it, next to the cost Claude Code reported itself.
    const meta = card.locator('.task-card-meta')
    await meta.getByText('via Claude Code').waitFor()
    // Claude Code's prompt tokens include its cache reads and writes: a share, never above 100%.
    expect(await meta.textContent()).toMatch(/\d+(\.\d)?k tokens.*cached (\d{1,2}|100)%/)
    expect(await meta.getByTestId('task-engine').getAttribute('title')).toMatch(/reported/)
    expect(await card.getByTestId('task-cost').textContent()).toMatch(/^\$0\.\d{4}$|^\$\d+\.\d{2}$/)
    await card.evaluate((el) => el.scrollIntoView({ block: 'start' }))
    await shootBoth(page, card, 'engcard-claude-code')
  })

  it('Codex (set in the project’s config): apply_patch with its files, mark_complete through tool search, priced from the catalog', async () => {
    const { host, call } = session
    const work = makeTempDir('ralph-engcard-codex-')
    const dir = join(work.path, 'codex-flavors')
    mkdirSync(dir)
    seedFlavors(dir)
    const opened = await call('projects.open', { path: dir })
    expect(opened.ok).toBe(true)
    const projectId = opened.value.id as number
    const set = await call('engines.setForProject', { projectId, engine: 'codex', engineModel: null })
    expect(set.ok).toBe(true)
    session.llm.enqueue(TASK)
    responses.enqueue(
      // Iteration 1 (PLAN): the markers into the plan with Codex's freeform apply_patch tool.
      {
        kind: 'tools',
        calls: [
          {
            name: 'apply_patch',
            arguments: {
              input: [
                '*** Begin Patch',
                '*** Update File: .ralph/plan.tsx',
                '@@ <Section gumdrop="features" files={[\'src/flavors.ts\']}>',
                '-          ',
                '+          {/* TASK-1 [ADD]: 2 nighttime flavors (Moonlit Calm, Deep Rest) */}',
                '+          {/* EXISTING 8 flavors PRESERVED */}',
                '*** End Patch',
                '',
              ].join('\n'),
            },
          },
        ],
      },
      { kind: 'text', text: 'Plan updated.' },
      // Iteration 2 (BUILD): a look, the two flavors, then Ralph's mark_complete found through tool search.
      { kind: 'tools', calls: [{ name: 'exec_command', arguments: { cmd: 'grep -c kick src/flavors.ts' } }] },
      {
        kind: 'tools',
        calls: [
          {
            name: 'apply_patch',
            arguments: {
              input: [
                '*** Begin Patch',
                '*** Update File: src/flavors.ts',
                '@@',
                "   { name: 'Spark', kick: 'high' },",
                "+  { name: 'Moonlit Calm', kick: 'high' },",
                "+  { name: 'Deep Rest', kick: 'high' },",
                ' ]',
                '*** End Patch',
                '',
              ].join('\n'),
            },
          },
        ],
      },
      { kind: 'tools', calls: [{ name: 'tool_search', arguments: { query: 'mark_complete', limit: 8 } }] },
      {
        kind: 'tools',
        calls: [
          {
            name: 'mcp__ralph__mark_complete',
            arguments: { summary: 'Added Moonlit Calm and Deep Rest after the 8 flavors.' },
          },
        ],
      },
      { kind: 'text', text: 'Done.' },
    )
    try {
      await page.goto(`${host.origin}/#/project/${projectId}`)
      await page.getByRole('button', { name: 'Engine: Codex 0.169.0' }).waitFor()
      await send(page, 'add 2 more drinks for nighttime')
      const card = page
        .getByRole('log', { name: 'Conversation' })
        .getByRole('article', { name: 'Task 1: Two night flavors' })
      const iterations = await expectFinishedCard(card)
      const patches = iterations.getByRole('button', { name: /apply_patch/ })
      await expect.poll(() => patches.count()).toBe(2)
      expect(await patches.nth(0).textContent()).toContain('.ralph/plan.tsx')
      expect(await patches.nth(1).textContent()).toContain('src/flavors.ts')
      expect(await iterations.getByRole('button', { name: /run_command/ }).textContent()).toContain(
        'grep -c kick src/flavors.ts',
      )
      await iterations.getByRole('button', { name: /mark_complete/ }).waitFor()
      const meta = card.locator('.task-card-meta')
      await meta.getByText('via Codex').waitFor()
      expect(await meta.getByTestId('task-engine').getAttribute('title')).toMatch(
        /priced from the model catalog/,
      )
      // Tokens with the share the prompt cache served (cache reads are part of the prompt's tokens).
      expect(await meta.textContent()).toMatch(/\d+(\.\d)?k tokens.*cached (\d{1,2}|100)%/)
      // Codex reports tokens only: the catalog prices them (gpt-5.5 → gpt-5's price), never "price unknown".
      expect(await card.getByTestId('task-cost').textContent()).toMatch(/^\$\d/)
      await card.evaluate((el) => el.scrollIntoView({ block: 'start' }))
      await shootBoth(page, card, 'engcard-codex')
    } finally {
      work.cleanup()
    }
  })
})

describe('an engine task when the engine is not installed', { timeout: 180_000 }, () => {
  let session: AppSession
  beforeAll(async () => {
    session = await startAppSession('no-engine', {}, { PATH: '/usr/bin:/bin' }, 'node')
  })
  afterAll(() => session?.close())

  it('the card fails with the install hint, and offers Retry, Edit and resend and Settings → Engine', async () => {
    const { page, host, projectId, dir } = session
    seedFlavors(dir)
    // The project says Claude Code (written by the CLI or another machine); this one does not have it.
    writeFileSync(join(dir, '.ralph/config.json'), JSON.stringify({ engine: 'claude-code' }))
    session.llm.enqueue(TASK)
    await page.goto(`${host.origin}/#/project/${projectId}`)
    await page.getByRole('button', { name: /^Engine: Claude Code/ }).waitFor()
    // Before sending, the composer says the task would fail, and where to fix it.
    const warning = page.getByTestId('composer-engine-missing')
    await warning.waitFor()
    expect(await warning.textContent()).toBe(
      'This project’s engine, Claude Code, is not installed on this machine: a task would fail. Install it, or ' +
        'choose another engine in Settings → Engine.',
    )
    expect(await warning.getByRole('link', { name: 'Settings → Engine' }).getAttribute('href')).toBe(
      '#/settings',
    )
    await shootBoth(page, page.locator('.composer'), 'engcard-composer-not-installed')
    // Ask mode runs no engine: no warning there.
    const mode = page.getByRole('radiogroup', { name: 'Mode' })
    await mode.getByRole('radio', { name: 'Ask', exact: true }).check()
    await warning.waitFor({ state: 'detached' })
    await mode.getByRole('radio', { name: 'Task', exact: true }).check()
    await warning.waitFor()
    await send(page, 'add 2 more drinks for nighttime')
    // It failed before its request was read: no model call was made for a task that cannot run.
    const card = page
      .getByRole('log', { name: 'Conversation' })
      .getByRole('article', { name: 'Task 1: Request not read' })
    await card.getByText('Failed', { exact: true }).waitFor({ timeout: 60_000 })
    await card.getByText(/Claude Code is not installed/).waitFor()
    await card
      .getByText(/npm install -g @anthropic-ai\/claude-code/)
      .first()
      .waitFor()
    const after = card.getByRole('group', { name: 'After the failure' })
    await after.getByRole('button', { name: 'Retry' }).waitFor()
    await after.getByRole('button', { name: 'Edit and resend' }).waitFor()
    const link = after.getByRole('link', { name: 'Check Claude Code in Settings → Engine' })
    expect(await link.getAttribute('href')).toBe('#/settings')
    expect(await after.getByRole('link', { name: /model provider/ }).count()).toBe(0)
    await card.evaluate((el) => el.scrollIntoView({ block: 'start' }))
    await shootBoth(page, card, 'engcard-not-installed')
  })
})
