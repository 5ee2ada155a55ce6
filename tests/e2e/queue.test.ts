import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { markTaskDone, queueLog } from '../../src/main/queue'
import { shootThemes } from '../helpers/browser'
import { runCli } from '../helpers/cli'
import { startAppSession, type AppSession } from '../helpers/appSession'
import { makeTempDir } from '../helpers/tempDir'
import { parsed, tools } from '../integration/loop/harness'
import { memoryLogger } from '../../src/main/workspace/logFile'

/** The queue's changes in these tests: failures they survive are kept in memory. */
const options = { logger: memoryLogger() }

// The Queue panel in Chromium against the real `npm run web`: tasks added, edited, reordered and removed through
// the panel land in .ralph/plan.jsonl and its history ref; a task the CLI adds shows up by itself; a done task is
// rejected with a reason and then accepted. Every step waits on a condition.

interface Rec {
  t: string
  id?: string
  name?: string
  deps?: string[]
  accept?: string[]
  priority?: string
  s?: string
  reject?: string
  reason?: string
}

describe('Queue panel in Chromium', { timeout: 120_000 }, () => {
  let session: AppSession
  let page: Page
  let dir: string
  const home = makeTempDir('ralph-cli-home-')

  const panel = () => page.getByRole('tabpanel', { name: 'Queue' })
  const queue = () => panel().getByRole('list', { name: 'Work queue' })
  const task = (name: string) => queue().getByRole('listitem', { name, exact: true })
  const dialog = (name: string) => page.getByRole('dialog', { name })
  const shoot = (name: string) => shootThemes(page, `queue-${name}`)
  const records = (): Rec[] => {
    let text = ''
    try {
      text = readFileSync(join(dir, '.ralph', 'plan.jsonl'), 'utf8')
    } catch {
      return []
    }
    return text
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Rec)
  }
  const tasksOnDisk = () => records().filter((r) => r.t === 'task')
  const namesOnDisk = () => tasksOnDisk().map((r) => r.name)
  const idOf = (name: string) => tasksOnDisk().find((r) => r.name === name)!.id!
  const historyOps = async () => {
    const log = await queueLog({ projectDir: dir })
    return log.kind === 'changes' ? log.entries.map((e) => e.op) : []
  }
  const stage = () => panel().getByRole('status', { name: 'Stage' })

  async function addTask(f: {
    name: string
    criteria: string
    deps?: string[]
    priority?: string
    spec?: string
  }) {
    await panel()
      .getByRole('button', { name: f.spec ? 'Add a first task' : 'Add task', exact: true })
      .click()
    const d = dialog('Add task')
    await d.waitFor()
    if (f.spec) await d.getByLabel('Spec file').fill(f.spec)
    await d.getByLabel('Name').fill(f.name)
    await d.getByLabel('Acceptance criteria').fill(f.criteria)
    for (const dep of f.deps ?? []) await d.getByRole('checkbox', { name: new RegExp(dep) }).check()
    if (f.priority) await d.getByLabel('Priority').selectOption(f.priority)
    return d
  }

  beforeAll(async () => {
    session = await startAppSession('vibrant-queue', { 'spec.md': '# VIBRANT ENERGY\n\nA landing page.\n' })
    ;({ page, dir } = session)
    await page.goto(`${session.host.origin}/#/project/${session.projectId}?panel=queue`)
  })

  afterAll(async () => {
    await session?.close()
    home.cleanup()
  })

  it('starts empty, saying what the queue is and how to fill it', async () => {
    await panel().getByText('The work queue is empty').waitFor()
    expect(await stage().textContent()).toBe('PLAN')
    expect(await panel().getByRole('button', { name: 'Build' }).getAttribute('aria-disabled')).toBe('true')
    await shoot('empty')
  })

  it('adds three tasks with dependencies and criteria, each written to plan.jsonl and its history', async () => {
    const first = await addTask({
      spec: 'spec.md',
      name: 'Flavor grid',
      criteria: 'DET: npm test passes\nLLM: the grid shows all 8 flavors',
      priority: 'high',
    })
    await first.getByRole('button', { name: 'Add task' }).click()
    await task('Flavor grid').waitFor()
    expect(records()[0]).toEqual({ t: 'spec', spec: 'spec.md' })
    expect(tasksOnDisk()).toEqual([
      expect.objectContaining({
        name: 'Flavor grid',
        s: 'p',
        priority: 'high',
        accept: ['DET: npm test passes', 'LLM: the grid shows all 8 flavors'],
      }),
    ])
    expect(await stage().textContent()).toBe('BUILD')

    const second = await addTask({
      name: 'Flavor cards',
      criteria: 'LLM: each card names its flavor',
      deps: ['Flavor grid'],
    })
    await shoot('add-dialog')
    await second.getByRole('button', { name: 'Add task' }).click()
    await task('Flavor cards').waitFor()
    const third = await addTask({
      name: 'Hero copy',
      criteria: 'LLM: the headline is loud\nDET: npm run lint',
    })
    await third.getByRole('button', { name: 'Add task' }).click()
    await task('Hero copy').waitFor()
    await shoot('filled')

    expect(namesOnDisk()).toEqual(['Flavor grid', 'Flavor cards', 'Hero copy'])
    expect(tasksOnDisk()[1]!.deps).toEqual([idOf('Flavor grid')])
    expect(tasksOnDisk()[2]!.accept).toEqual(['LLM: the headline is loud', 'DET: npm run lint'])
    expect(await task('Flavor cards').textContent()).toContain('After Flavor grid')
    expect(await task('Hero copy').getByRole('list', { name: 'Acceptance criteria' }).textContent()).toBe(
      'LLMAC1the headline is loudDETAC2npm run lint',
    )
    expect(await historyOps()).toEqual(['task-add', 'task-add', 'task-add', 'set-spec'])
  })

  it('edits a task', async () => {
    await task('Hero copy').getByRole('button', { name: 'Edit' }).click()
    const d = dialog('Edit Hero copy')
    await d.getByLabel('Name').fill('Hero headline')
    await d.getByLabel('Notes').fill('Loud, short, no exclamation marks')
    await d.getByRole('button', { name: 'Save' }).click()
    await task('Hero headline').waitFor()
    await expect.poll(namesOnDisk).toEqual(['Flavor grid', 'Flavor cards', 'Hero headline'])
    expect(tasksOnDisk()[2]).toMatchObject({ notes: 'Loud, short, no exclamation marks' })
    expect((await historyOps())[0]).toBe('task-edit')
  })

  it('reorders: a task moves up in the build order and in the file', async () => {
    const order = () =>
      queue()
        .locator('li.queue-task')
        .evaluateAll((items) => items.map((li) => li.getAttribute('aria-label')))
    expect(await order()).toEqual(['Flavor grid', 'Flavor cards', 'Hero headline'])
    await task('Hero headline').getByRole('button', { name: 'Move up' }).click()
    await expect.poll(order).toEqual(['Flavor grid', 'Hero headline', 'Flavor cards'])
    expect(namesOnDisk()).toEqual(['Flavor grid', 'Hero headline', 'Flavor cards'])
    expect((await historyOps())[0]).toBe('task-move')
  })

  it('removes a task after confirming; the history shows it cancelled', async () => {
    await task('Flavor cards').getByRole('button', { name: 'Remove' }).click()
    const confirm = page.getByRole('alertdialog', { name: 'Remove Flavor cards?' })
    await confirm.getByRole('button', { name: 'Remove' }).click()
    await task('Flavor cards').waitFor({ state: 'detached' })
    await expect.poll(namesOnDisk).toEqual(['Flavor grid', 'Hero headline'])
    expect(await historyOps()).toEqual([
      'task-cancel',
      'task-move',
      'task-edit',
      'task-add',
      'task-add',
      'task-add',
      'set-spec',
    ])
    const all = await queueLog({ projectDir: dir, all: true })
    expect(all.kind === 'tasks' && all.tasks.map((t) => [t.name, t.status])).toEqual([
      ['Flavor grid', 'pending'],
      ['Flavor cards', 'cancelled'],
      ['Hero headline', 'pending'],
    ])
  })

  it('shows a task the CLI adds without a reload', async () => {
    const added = await runCli(
      ['task', 'add', 'Store page', '--accept', 'DET: npm test', '--project', dir, '--json'],
      { env: { RALPH_HOME: home.path } },
    )
    expect(added.code, added.stderr).toBe(0)
    await task('Store page').waitFor({ timeout: 30_000 })
  })

  it('rejects a done task with a reason, then accepts it', async () => {
    const id = idOf('Flavor grid')
    await markTaskDone({ projectDir: dir, id, doneAt: 'post-1', options })
    await task('Flavor grid').getByRole('button', { name: 'Reject' }).waitFor({ timeout: 30_000 })
    expect(await stage().textContent()).toBe('BUILD')
    // One step: the reason beside Reject; Enter sends it.
    const reason = task('Flavor grid').getByRole('textbox', { name: 'Why reject Flavor grid?' })
    await reason.fill('The grid shows 7 flavors, not 8')
    await shoot('reject-inline')
    await reason.press('Enter')
    await expect
      .poll(() => records().find((r) => r.t === 'reject'))
      .toEqual({ t: 'reject', id, done_at: 'post-1', reason: 'The grid shows 7 flavors, not 8' })
    expect(tasksOnDisk().find((r) => r.id === id)).toMatchObject({
      s: 'p',
      reject: 'The grid shows 7 flavors, not 8',
    })
    await task('Flavor grid').getByText('The grid shows 7 flavors, not 8').waitFor()

    await markTaskDone({ projectDir: dir, id, doneAt: 'post-2', options })
    await task('Flavor grid').getByRole('button', { name: 'Accept' }).click({ timeout: 30_000 })
    await task('Flavor grid').waitFor({ state: 'detached' })
    await expect.poll(namesOnDisk).toEqual(['Hero headline', 'Store page'])
    const all = await queueLog({ projectDir: dir, all: true })
    expect(all.kind === 'tasks' && all.tasks.find((t) => t.id === id)?.status).toBe('accepted')
  })

  it('adds and closes an issue, and lists notifications', async () => {
    await panel().getByLabel('New issue').fill('The footer overlaps on mobile')
    await panel().getByRole('button', { name: 'Add issue' }).click()
    const issue = panel().getByRole('list', { name: 'Issues' }).getByRole('listitem', {
      name: 'The footer overlaps on mobile',
    })
    await issue.waitFor()
    expect(records().filter((r) => r.t === 'issue')).toHaveLength(1)
    await issue.getByRole('button', { name: 'Close issue' }).click()
    await issue.waitFor({ state: 'detached' })
    expect(records().filter((r) => r.t === 'issue')).toHaveLength(0)

    mkdirSync(join(dir, '.ralph', 'notifications'), { recursive: true })
    writeFileSync(
      join(dir, '.ralph', 'notifications', 'escalation-2026-11-25T12-00-00Z.md'),
      '# Hero headline failed verification 3 times\n\nRolled back to task-2-pre.\n',
    )
    await panel()
      .getByRole('list', { name: 'Notifications' })
      .getByRole('listitem', { name: 'Hero headline failed verification 3 times' })
      .waitFor({ timeout: 30_000 })
  })

  // Builds from the panel: runBuild in the web host against the fake LLM, DET criteria checked by a real command.
  const progress = () => panel().getByRole('region', { name: 'Build progress' })
  const built = (name: string) =>
    progress().getByRole('list', { name: 'Built tasks' }).getByRole('listitem', { name, exact: true })
  const criterion = (file: string, want: string) => `DET: \`node check.cjs ${file} ${want}\` exits 0`
  /** One attempt: the parse, then one iteration that writes FILE and marks the task complete. */
  const attempt = (file: string, content: string, delayMs?: number) => [
    parsed({ type: 'fresh', title: `Write ${file}` }),
    {
      ...tools(
        ['write_file', { path: file, content: `${content}\n` }],
        ['mark_complete', { summary: `Wrote ${file}.` }],
      ),
      ...(delayMs ? { delayMs } : {}),
    },
  ]

  it('builds two dependent tasks from the panel: live progress, both accepted, every verdict shown', async () => {
    writeFileSync(
      join(dir, 'check.cjs'),
      `const fs = require('fs')
const [file, want] = process.argv.slice(2)
const got = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '(missing)'
if (got !== want) { console.error(file + ': expected "' + want + '", got "' + got + '"'); process.exit(1) }
`,
    )
    // The earlier tasks have LLM criteria the fake model cannot seal: they leave the queue first.
    for (const name of ['Hero headline', 'Store page']) {
      await task(name).getByRole('button', { name: 'Remove' }).click()
      await page
        .getByRole('alertdialog', { name: `Remove ${name}?` })
        .getByRole('button', { name: 'Remove' })
        .click()
      await task(name).waitFor({ state: 'detached' })
    }
    const a = await addTask({ name: 'Write a.txt', criteria: criterion('a.txt', 'alpha') })
    await a.getByRole('button', { name: 'Add task' }).click()
    await task('Write a.txt').waitFor()
    const b = await addTask({
      name: 'Write b.txt',
      criteria: criterion('b.txt', 'beta'),
      deps: ['Write a.txt'],
    })
    await b.getByRole('button', { name: 'Add task' }).click()
    await task('Write b.txt').waitFor()
    const [idA, idB] = [idOf('Write a.txt'), idOf('Write b.txt')]

    // The second task's model answer takes a while, so its running state can be seen (the test waits on it).
    session.llm.enqueue(...attempt('a.txt', 'alpha'), ...attempt('b.txt', 'beta', 6_000))
    await panel().getByRole('button', { name: 'Build', exact: true }).click()
    await progress().getByText('Build running').waitFor({ timeout: 30_000 })
    await progress().getByText('Write b.txt').first().waitFor({ timeout: 60_000 })
    await progress().getByText('Attempt 1 of 3').waitFor()
    await built('Write a.txt').getByRole('list', { name: 'Verdicts' }).waitFor({ timeout: 30_000 })
    await panel().getByRole('button', { name: 'Stop' }).waitFor()
    await shoot('build-running')

    await progress().getByText('Last build').waitFor({ timeout: 90_000 })
    expect(await progress().textContent()).toContain('Build complete.')
    for (const name of ['Write a.txt', 'Write b.txt']) {
      expect(await built(name).textContent()).toContain('accepted')
      const verdicts = built(name).getByRole('list', { name: 'Verdicts' })
      await verdicts.getByRole('listitem', { name: 'AC1 YES' }).waitFor({ timeout: 30_000 })
      expect(await built(name).getByRole('group').textContent()).toContain('PASS')
    }
    await shoot('build-verdicts')
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('alpha\n')
    expect(readFileSync(join(dir, 'b.txt'), 'utf8')).toBe('beta\n')
    await expect.poll(namesOnDisk).toEqual([])
    const all = await queueLog({ projectDir: dir, all: true })
    expect(
      all.kind === 'tasks' && all.tasks.filter((t) => [idA, idB].includes(t.id)).map((t) => t.status),
    ).toEqual(['accepted', 'accepted'])
    // The build's summary notification is listed with the others.
    await panel()
      .getByRole('list', { name: 'Notifications' })
      .getByRole('listitem', { name: 'The build is complete' })
      .waitFor({ timeout: 30_000 })
  })

  it('stops a build inside its task; the task stays pending for the next build', async () => {
    const c = await addTask({ name: 'Write c.txt', criteria: criterion('c.txt', 'gamma') })
    await c.getByRole('button', { name: 'Add task' }).click()
    await task('Write c.txt').waitFor()
    session.llm.enqueue(parsed({ type: 'fresh', title: 'Write c.txt' }), { kind: 'hang' })
    await panel().getByRole('button', { name: 'Build', exact: true }).click()
    await progress()
      .getByText(/Iteration 1 of/)
      .waitFor({ timeout: 60_000 })
    // Stopped inside the iteration's request, so the hang is not left to answer a later request.
    await expect.poll(() => session.llm.pending(), { timeout: 60_000 }).toBe(0)
    await panel().getByRole('button', { name: 'Stop' }).click()
    await progress().getByText('Build stopped.').waitFor({ timeout: 60_000 })
    expect(await built('Write c.txt').textContent()).toContain('stopped')
    expect(tasksOnDisk()).toEqual([expect.objectContaining({ name: 'Write c.txt', s: 'p' })])
    expect(
      await panel().getByRole('button', { name: 'Build', exact: true }).getAttribute('aria-disabled'),
    ).toBeNull()
  })

  it('in interactive mode, asks in the panel before accepting; Accept goes on', async () => {
    session.llm.enqueue(...attempt('c.txt', 'gamma'))
    await panel().getByRole('combobox', { name: 'Build mode' }).selectOption('interactive')
    await panel().getByRole('button', { name: 'Build', exact: true }).click()
    const approval = progress().getByRole('group', { name: 'Approval' })
    await approval.waitFor({ timeout: 90_000 })
    expect(await approval.textContent()).toContain('passed verification')
    expect(tasksOnDisk()).toEqual([expect.objectContaining({ name: 'Write c.txt', s: 'd' })])
    await shoot('build-approval')
    await approval.getByRole('button', { name: 'Accept' }).click()
    await progress().getByText('Last build').waitFor({ timeout: 60_000 })
    expect(await built('Write c.txt').textContent()).toContain('accepted')
    await expect.poll(namesOnDisk).toEqual([])
  })
})
