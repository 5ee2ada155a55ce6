import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  approvalMessage,
  nothingToBuild,
  openIssuesNote,
  waitingForDecision,
} from '../../../src/main/build/buildMessages'
import { retryEscalated } from '../../../src/main/build/escalations'
import { addPanelTask } from '../../../src/main/queue/panelCases'
import {
  decideAttempt,
  escalationHelp,
  freshAttempts,
  type BuildAction,
} from '../../../src/main/build/decide'
import { applyCommand, type QueueCommand } from '../../../src/main/queue/commands'
import { findTask, specFor } from '../../../src/main/queue/edits'
import { spec, stateOf, task } from '../../../src/main/queue/testkit'
import { nextAction, queueView } from '../../../src/main/queue/view'
import { forTheApp, withoutCliHints } from '../../../src/renderer/src/features/queue/appText'

/** The message an async action fails with. */
async function refusalOf(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => {
      throw new Error('expected a refusal')
    },
    (err: unknown) => (err as Error).message,
  )
}

/** The message an action fails with (the core's refusals are what the panel shows). */
function refusal(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    return (err as Error).message
  }
  throw new Error('expected a refusal')
}

/**
 * Every message the queue and the build can show the panel that names a CLI command, made by the core's own
 * functions (not copied strings): when a wording changes, the app's rewriting (appText.ts) must follow, or this
 * fails — the GUI never tells the user to type a command.
 */
function coreMessages(): string[] {
  const id = 't-3s71'
  const out: string[] = []
  const actions = (a: BuildAction[]) =>
    a.flatMap((x) => ('message' in x && typeof x.message === 'string' ? [x.message] : []))
  const policy = { maxFailures: 1, mode: 'hybrid' as const }
  out.push(escalationHelp(id))
  out.push(
    nothingToBuild(),
    waitingForDecision([id]),
    waitingForDecision([id, 't-9k2q']),
    `Built and verified 1 task: t-9k2q.${openIssuesNote([{ id: 'i-1', desc: 'the footer overlaps' }])}`,
    approvalMessage(id, false),
    approvalMessage(id, null),
  )
  out.push(
    ...actions(
      decideAttempt(
        id,
        freshAttempts(),
        { kind: 'verified', outcome: 'NEEDS_HUMAN', feedback: 'unclear' },
        policy,
      ).actions,
    ),
    ...actions(
      decideAttempt(id, freshAttempts(), { kind: 'needs-clarification', question: 'Which?' }, policy).actions,
    ),
    ...actions(
      decideAttempt(
        id,
        freshAttempts(),
        { kind: 'verified', outcome: 'FAIL', feedback: 'no', reason: 'no' },
        policy,
      ).actions,
    ),
    ...actions(
      decideAttempt(id, freshAttempts(), { kind: 'task-failed', reason: 'stall', message: 'stuck' }, policy)
        .actions,
    ),
  )
  const cmd = (state: ReturnType<typeof stateOf>, c: QueueCommand) => refusal(() => applyCommand(state, c))
  const withSpec = stateOf(spec(), task(id))
  out.push(
    refusal(() => specFor(stateOf(), undefined, 'task')),
    refusal(() => findTask(withSpec, 't-none')),
    cmd(withSpec, { op: 'task-add', input: { name: ' ', accept: [] } } as QueueCommand),
    cmd(withSpec, { op: 'issue-add', desc: ' ' } as QueueCommand),
    cmd(withSpec, { op: 'issue-done', id: 'i-none' } as QueueCommand),
    cmd(stateOf(spec(), task(id, { s: 'd' })), { op: 'task-done', id, doneAt: '2026-01-01' } as QueueCommand),
    cmd(stateOf(spec()), { op: 'task-done', doneAt: '2026-01-01' } as QueueCommand),
    cmd(withSpec, { op: 'task-accept', ids: [id] } as QueueCommand),
    cmd(withSpec, { op: 'task-accept' } as QueueCommand),
    cmd(stateOf(spec(), task(id, { s: 'd' })), { op: 'task-reject', id, reason: ' ' } as QueueCommand),
    cmd(stateOf(spec(), task(id, { deps: ['t-b'] }), task('t-b', { deps: [id] })), {
      op: 'task-done',
      doneAt: '2026-01-01',
    } as QueueCommand),
  )
  const cycle = stateOf(spec(), task(id, { deps: ['t-b'] }), task('t-b', { deps: [id] }))
  out.push(...queueView(cycle).warnings.map((w) => w.message))
  out.push(...queueView(stateOf(spec(), spec('b.md'), task(id))).warnings.map((w) => w.message))
  const plan = nextAction({ ...stateOf(), exists: true })
  if ('reason' in plan) out.push(plan.reason)
  return out
}

describe('the app’s words for the core’s CLI hints', () => {
  it('every CLI-hinting message the core makes reads without a command in the app', async () => {
    const messages = coreMessages()
    // Those made against a project folder: an empty one (no queue yet).
    const projectDir = mkdtempSync(join(tmpdir(), 'ralph-hints-'))
    try {
      messages.push(
        await refusalOf(
          addPanelTask({ projectDir, name: 'x', options: {} } as Parameters<typeof addPanelTask>[0]),
        ),
        await refusalOf(
          retryEscalated({ projectDir, id: 't-3s71' } as unknown as Parameters<typeof retryEscalated>[0]),
        ),
      )
    } finally {
      rmSync(projectDir, { recursive: true, force: true })
    }
    // The core's messages do name commands (the CLI's text is unchanged): the test feeds real hints.
    expect(messages.filter((m) => /ralph /.test(m)).length).toBeGreaterThanOrEqual(12)
    const names = new Map([['t-3s71', 'Flavor grid']])
    for (const message of messages) {
      expect(withoutCliHints(message), message).not.toMatch(/\bralph /)
      expect(forTheApp(message, names), message).not.toMatch(/\bralph |t-3s71/)
    }
  })
})
