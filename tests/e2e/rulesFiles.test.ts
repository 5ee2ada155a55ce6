import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'

// The project's rules files in Chromium against the real web host: the header's "Rules files" opens them, and a
// switch turns one off in .ralph/config.json (what every iteration and the verifier then leave out).
describe('rules files in Chromium', { timeout: 120_000 }, () => {
  let session: AppSession
  beforeAll(async () => {
    session = await startAppSession('rules', {
      'AGENTS.md': '# Agents\nRun the tests with npm test.\n',
      'CLAUDE.md': 'Prefer small functions.\n',
      'index.html': '<h1>hi</h1>\n',
    })
  })
  afterAll(() => session?.close())

  it('lists them from the header, and a switch turns one off', async () => {
    const { page, host, projectId, dir } = session
    await page.goto(`${host.origin}/#/project/${projectId}`)
    await page.getByRole('button', { name: 'Rules files' }).click()
    const dialog = page.getByRole('dialog', { name: 'Rules files' })
    const claude = dialog.getByRole('switch', { name: 'CLAUDE.md' })
    await expect.poll(() => claude.isChecked()).toBe(true)
    await expect.poll(() => dialog.getByRole('switch', { name: 'AGENTS.md' }).isChecked()).toBe(true)
    await claude.click()
    await expect.poll(() => claude.isChecked()).toBe(false)
    await expect
      .poll(() => JSON.parse(readFileSync(join(dir, '.ralph', 'config.json'), 'utf8')).rules?.disabled)
      .toEqual(['CLAUDE.md'])
    await dialog.getByText('off: the model does not read it').waitFor()
    await shootThemes(page, 'rules-files-dialog')
  })
})
