import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addTask, setSpec } from '../../src/main/queue'
import { shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'
import { parsed, tools } from '../integration/loop/harness'
import { memoryLogger } from '../../src/main/workspace/logFile'

/** The queue's changes in these tests: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

// An escalated task in the Queue panel, in Chromium against the real `npm run web`: a build from the panel fails
// the task three times (a DET criterion, real command), rolls back and escalates; the task shows "Escalated" with
// its reason; Build again starts nothing (no model call); Retry ends the escalation and the next build passes.
// The tests of this file run in order, each on the state the previous one left.

const CHECK = `const fs = require('fs')
const [file, want] = process.argv.slice(2)
const got = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '(missing)'
if (got !== want) { console.error(file + ': expected "' + want + '", got "' + got + '"'); process.exit(1) }
`

const attempt = (content: string) => [
  parsed({ type: 'fresh', title: 'Write a.txt' }),
  tools(
    ['write_file', { path: 'a.txt', content: `${content}\n` }],
    ['mark_complete', { summary: 'Wrote a.txt.' }],
  ),
]

describe('an escalated task in the Queue panel', { timeout: 120_000 }, () => {
  let session: AppSession
  let page: Page
  let dir: string
  let id: string

  const panel = () => page.getByRole('tabpanel', { name: 'Queue' })
  const task = () =>
    panel()
      .getByRole('list', { name: 'Work queue' })
      .getByRole('listitem', { name: 'Write a.txt', exact: true })
  const progress = () => panel().getByRole('region', { name: 'Build progress' })
  const build = () => panel().getByRole('button', { name: 'Build', exact: true })

  beforeAll(async () => {
    session = await startAppSession('escalation', { 'spec.md': '# One file\n', 'check.cjs': CHECK })
    ;({ page, dir } = session)
    await setSpec({ projectDir: dir, spec: 'spec.md', options })
    id = (
      await addTask({
        projectDir: dir,
        name: 'Write a.txt',
        notes: 'Put exactly "alpha" in a.txt.',
        accept: ['DET: `node check.cjs a.txt alpha` exits 0'],
        options,
      })
    ).ids[0]!
    await page.goto(`${session.host.origin}/#/project/${session.projectId}?panel=queue`)
    await task().waitFor()
  })

  afterAll(async () => {
    await session?.close()
  })

  it('three failures in a panel build roll back and leave the task Escalated, with its reason and Retry', async () => {
    session.llm.enqueue(...attempt('one'), ...attempt('two'), ...attempt('three'))
    await build().click()
    await progress().getByText('Last build').waitFor({ timeout: 90_000 })
    expect(await progress().textContent()).toContain('Build escalated.')
    await task().getByText('Escalated', { exact: true }).waitFor({ timeout: 30_000 })
    expect(await task().textContent()).toContain('Failed 3 times; the project was rolled back to task-1-pre')
    expect(existsSync(join(dir, 'a.txt'))).toBe(false)
    await task().getByText('What happened').click()
    await task()
      .getByText(/The last attempt failed: AC1: .* got "three"/)
      .waitFor()
    await task().scrollIntoViewIfNeeded()
    await shootThemes(page, 'queue-escalated')
  })

  it('Build again starts nothing: no model call, and it names the task and what to do', async () => {
    const calls = session.llm.requests.length
    await build().click()
    await expect
      .poll(async () => (await progress().textContent()) ?? '', { timeout: 30_000 })
      .toContain('“Write a.txt” is escalated')
    // The panel says which button to use; the CLI's `ralph build --retry` is for the terminal.
    expect(await progress().textContent()).toContain('Retry it with its Retry button in the queue')
    expect(await progress().textContent()).not.toContain('ralph build --retry')
    expect(await progress().textContent()).not.toContain(`${id} "Write a.txt"`)
    expect(session.llm.requests.length).toBe(calls)
  })

  it('Retry ends the escalation and builds the task again at once, to a PASS', async () => {
    session.llm.enqueue(...attempt('alpha'))
    await task().getByRole('button', { name: 'Retry' }).click()
    await task().getByText('Escalated', { exact: true }).waitFor({ state: 'detached', timeout: 30_000 })
    await page.getByText('“Write a.txt” is no longer escalated: building it now').waitFor()
    await progress()
      .getByText(/Build complete\./)
      .waitFor({ timeout: 90_000 })
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('alpha\n')
  })
})
