import { VirtuosoMockContext } from 'react-virtuoso'
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  applyBuildEvent,
  idleBuild,
  type BuildProgress,
  type QueueBuildEvent,
  type Verification,
} from '../../../../shared/queueBuild'
import type { QueueView } from '../../../../shared/queue'
import { createClient } from '../../api'
import { startBrowserNotifications, type NotificationApi } from '../../app/notifications'
import { createFakeTransport } from '../../test/fakeTransport'
import { projectDetail } from '../../test/fixtures'
import { renderWithProviders } from '../../test/render'
import { useTimelineUi } from '../timeline'
import { QueuePanel } from './QueuePanel'
import { filledQueue, mutation } from './testData'

// The task list is virtualized: happy-dom lays nothing out, so the list is given a viewport that holds every row.
const VirtualQueuePanel = () => (
  <VirtuosoMockContext.Provider value={{ viewportHeight: 10_000, itemHeight: 120 }}>
    <QueuePanel projectId={1} />
  </VirtuosoMockContext.Provider>
)

/** The filled queue without its done task: something to build and nothing waiting for a decision. */
const buildable = (): QueueView => {
  const q = filledQueue()
  return { ...q, tasks: q.tasks.filter((t) => t.status !== 'done') }
}

const callsOf = (calls: { name: string; input: unknown }[], name: string) =>
  calls.filter((c) => c.name === name).map((c) => c.input)

const fold = (events: QueueBuildEvent[]): BuildProgress =>
  events.reduce((p, e) => applyBuildEvent(p, e, 1_000), idleBuild())

const started: QueueBuildEvent[] = [
  {
    type: 'build.started',
    mode: 'hybrid',
    order: ['t-grid', 't-copy'],
    budget: { maxCostUsd: null, maxMinutes: null },
  },
  { type: 'build.attempt', taskId: 't-grid', name: 'Flavor grid', attempt: 2, task: 4 },
  { type: 'iteration.started', task: 4, iteration: 1, phase: 'build', maxIterations: 20 },
  {
    type: 'verify.started',
    taskId: 't-grid',
    nonce: '3FA9C1',
    criteria: [
      { ref: 'AC1', kind: 'DET', text: 'npm test passes' },
      { ref: 'AC2', kind: 'LLM', text: 'the grid shows every flavor' },
    ],
    warnings: [],
  },
  {
    type: 'verify.criterion',
    taskId: 't-grid',
    nonce: '3FA9C1',
    repaired: false,
    verdict: {
      ref: 'AC1',
      kind: 'DET',
      text: 'npm test passes',
      answer: 'YES',
      reason: 'exit 0',
      costUsd: 0,
    },
  },
]

const stored = (outcome: Verification['outcome']): Verification => ({
  nonce: 'B0B0B0',
  at: 1,
  outcome,
  verdicts: [
    {
      id: 1,
      runId: 3,
      ref: 'AC1',
      kind: 'DET',
      criterion: 'npm test passes',
      answer: 'YES',
      reason: '`npm test` exited 0',
      costUsd: 0,
      createdAt: 1,
    },
    {
      id: 2,
      runId: 3,
      ref: 'AC2',
      kind: 'LLM',
      criterion: 'the grid shows every flavor',
      answer: outcome === 'PASS' ? 'YES' : 'NEEDS_HUMAN',
      reason: outcome === 'PASS' ? 'All 8 flavors are rendered' : 'The screenshot is cut off',
      costUsd: 0.001,
      createdAt: 1,
    },
  ],
})

function renderPanel(
  state: QueueView,
  progress: () => BuildProgress,
  handlers: Record<string, (input: unknown) => unknown> = {},
) {
  return renderWithProviders(<VirtualQueuePanel />, {
    'queue.state': () => state,
    'queue.notifications': () => ({ items: [], total: 0 }),
    'queue.buildStatus': progress,
    'queue.verdicts': () => ({ verifications: [] }),
    ...handlers,
  })
}

describe('Queue panel: builds', () => {
  it('starts a build, shows the task, its attempt, its step and verdicts as they arrive, and stops it', async () => {
    let progress = idleBuild()
    const view = renderPanel(buildable(), () => progress, {
      'queue.build': () => {
        progress = fold(started.slice(0, 1))
        return { started: true }
      },
      'queue.stopBuild': () => ({ stopped: true }),
    })
    const build = await screen.findByRole('button', { name: 'Build' })
    await waitFor(() => expect(build).not.toHaveAttribute('aria-disabled'))
    await userEvent.click(build)
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'queue.build').map((c) => c.input)).toEqual([
        { projectId: 1, mode: 'hybrid' },
      ]),
    )
    const section = await screen.findByRole('region', { name: 'Build progress' })
    expect(section).toHaveTextContent('Build running')

    // Events arrive: each refreshes the progress.
    progress = fold(started)
    view.emit('queue.buildEvent', { projectId: 1, event: started.at(-1)! })
    await waitFor(() => expect(section).toHaveTextContent('Attempt 2 of 3'))
    expect(section).toHaveTextContent('Flavor grid')
    expect(section).toHaveTextContent('Verified AC1: YES')
    const live = within(section).getByRole('list', { name: 'Live verdicts' })
    expect(within(live).getByRole('listitem', { name: 'AC1 YES' })).toHaveTextContent(
      'DETAC1npm test passesYESexit 0',
    )
    expect(within(live).getByRole('listitem', { name: 'AC2 waiting' })).toHaveTextContent('LLM')
    expect(screen.queryByRole('button', { name: 'Build' })).toBeNull()

    await userEvent.click(screen.getByRole('button', { name: 'Stop' }))
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'queue.stopBuild')).toEqual([
        expect.objectContaining({ input: { projectId: 1 } }),
      ]),
    )
  })

  it('builds in the chosen mode; an interactive build’s question is answered with Accept or Reject', async () => {
    let progress = idleBuild()
    const view = renderPanel(buildable(), () => progress, {
      'queue.build': () => {
        progress = fold([
          ...started,
          {
            type: 'build.approval',
            taskId: 't-grid',
            question: 't-grid passed verification. Accept it and go on?',
          },
        ])
        return { started: true }
      },
      'queue.approve': () => {
        progress = { ...progress, approval: null }
        return { answered: true }
      },
    })
    await userEvent.selectOptions(await screen.findByRole('combobox', { name: 'Build mode' }), 'interactive')
    const build = screen.getByRole('button', { name: 'Build' })
    await waitFor(() => expect(build).not.toHaveAttribute('aria-disabled'))
    await userEvent.click(build)
    const approval = await screen.findByRole('group', { name: 'Approval' })
    expect(approval).toHaveTextContent('“Flavor grid” passed verification. Accept it and go on?')
    expect(screen.getByRole('combobox', { name: 'Build mode' })).toBeDisabled()
    await userEvent.click(within(approval).getByRole('button', { name: 'Accept' }))
    await waitFor(() => expect(screen.queryByRole('group', { name: 'Approval' })).toBeNull())
    expect(view.calls.filter((c) => c.name === 'queue.build').map((c) => c.input)).toEqual([
      { projectId: 1, mode: 'interactive' },
    ])
    expect(view.calls.filter((c) => c.name === 'queue.approve').map((c) => c.input)).toEqual([
      { projectId: 1, approve: true },
    ])
  })

  it('an interactive build’s question shows what the attempt changed, opens its diff, and rejects in one step with a reason', async () => {
    let progress = fold([
      ...started,
      {
        type: 'build.approval',
        taskId: 't-grid',
        question: 't-grid passed verification. Accept it and go on?',
      },
    ])
    const view = renderPanel(buildable(), () => progress, {
      'queue.verdicts': () => ({ verifications: [{ ...stored('PASS'), task: 4 }] }),
      'snapshots.diff': () => ({
        from: 'task-4-pre',
        to: 'task-4-post',
        entries: [
          { status: 'added', path: 'grid.html' },
          { status: 'modified', path: '.ralph/progress.md' },
        ],
        counts: { added: 1, modified: 1, deleted: 0, renamed: 0 },
      }),
      'queue.approve': () => {
        // The build hears "no" and pauses with the task done; the panel hears it end.
        progress = { ...progress, running: false, approval: null }
        queueMicrotask(() =>
          view.emit('queue.buildEvent', {
            projectId: 1,
            event: {
              type: 'build.finished',
              status: 'paused',
              message: 'paused',
              accepted: [],
              costUsd: 0,
              durationMs: 1,
            },
          }),
        )
        return { answered: true }
      },
      'queue.reject': () => mutation(buildable()),
    })
    const approval = await screen.findByRole('group', { name: 'Approval' })
    // The attempt's own files (task-4-pre → task-4-post), Ralph's notes left out.
    const files = await within(approval).findByRole('list', { name: 'Files this attempt changed' })
    expect(
      within(files)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['+grid.html'])
    expect(callsOf(view.calls, 'snapshots.diff')).toEqual([
      { projectId: 1, target: 'task-4-pre', against: 'task-4-post' },
    ])
    // Its diff opens in the Timeline's Compare, full size over the Queue, on that file.
    await userEvent.click(within(files).getByRole('button', { name: 'Open the diff of grid.html' }))
    expect(useTimelineUi.getState()).toMatchObject({
      compare: { from: 'task-4-pre', to: 'task-4-post' },
      file: 'grid.html',
      fullSize: true,
    })
    expect(
      await screen.findByRole('dialog', { name: 'Compare task-4-pre → task-4-post' }),
    ).toBeInTheDocument()
    act(() => useTimelineUi.getState().setFullSize(false))
    await waitFor(() => expect(useTimelineUi.getState().compare).toBeNull())

    // One step: the reason beside Reject, Enter sends; the build is answered, then the task rejected.
    const reject = within(approval).getByRole('button', { name: 'Reject' })
    await userEvent.click(reject)
    expect(callsOf(view.calls, 'queue.approve')).toEqual([])
    await userEvent.type(
      within(approval).getByRole('textbox', { name: 'Why reject Flavor grid?' }),
      'The grid shows 7 flavors{Enter}',
    )
    await waitFor(() =>
      expect(callsOf(view.calls, 'queue.reject')).toEqual([
        { projectId: 1, id: 't-grid', reason: 'The grid shows 7 flavors' },
      ]),
    )
    expect(callsOf(view.calls, 'queue.approve')).toEqual([{ projectId: 1, approve: false }])
  })

  it('shows how the last build ended and each task’s verdicts: answer chip, DET/LLM and reason', async () => {
    const progress = fold([
      ...started,
      {
        type: 'verify.completed',
        taskId: 't-grid',
        nonce: '3FA9C1',
        outcome: 'PASS',
        costUsd: 0,
        feedback: '',
        durationMs: 5,
      },
      { type: 'build.accepted', taskId: 't-grid', commit: null },
      {
        type: 'build.finished',
        status: 'complete',
        message: 'Built and verified 1 task: t-grid.',
        accepted: ['t-grid'],
        costUsd: 0.0123,
        durationMs: 4_000,
      },
    ])
    renderPanel(buildable(), () => progress, {
      'queue.verdicts': (input) => ({
        verifications: (input as { taskId: string }).taskId === 't-grid' ? [stored('PASS')] : [],
      }),
    })
    const section = await screen.findByRole('region', { name: 'Build progress' })
    expect(section).toHaveTextContent('Last build')
    expect(section).toHaveTextContent(
      'Build complete. Built and verified 1 task: “Flavor grid”. ($0.0123, 4 s)',
    )
    const built = within(section).getByRole('listitem', { name: 'Flavor grid' })
    expect(built).toHaveTextContent('accepted')
    const verdicts = await within(built).findByRole('list', { name: 'Verdicts' })
    expect(within(verdicts).getByRole('listitem', { name: 'AC2 YES' })).toHaveTextContent(
      'LLMAC2the grid shows every flavorYESAll 8 flavors are rendered',
    )
    expect(within(built).getByRole('group', { name: 'Verification of t-grid' })).toHaveTextContent('PASS')
  })

  it('a done task paused on NEEDS_HUMAN shows its verdicts with Accept, Reject and Re-plan; Re-plan sends it back with a note', async () => {
    const q = filledQueue()
    const view = renderPanel(q, () => idleBuild(), {
      'queue.verdicts': (input) => ({
        verifications: (input as { taskId: string }).taskId === 't-done' ? [stored('NEEDS_HUMAN')] : [],
      }),
      'queue.replan': () => mutation(q),
    })
    const done = await within(await screen.findByRole('list', { name: 'Work queue' })).findByRole(
      'listitem',
      {
        name: 'Set up the page',
      },
    )
    const verdicts = await within(done).findByRole('list', { name: 'Verdicts' })
    expect(within(verdicts).getByRole('listitem', { name: 'AC2 NEEDS_HUMAN' })).toHaveTextContent(
      'The screenshot is cut off',
    )
    expect(within(done).getByRole('group', { name: 'Verification of t-done' })).toHaveTextContent(
      'NEEDS_HUMAN',
    )
    expect(within(done).getByRole('button', { name: 'Accept' })).toBeInTheDocument()
    expect(within(done).getByRole('button', { name: 'Reject' })).toBeInTheDocument()
    // With a done task waiting, Build says why it cannot start.
    expect(screen.getByRole('button', { name: 'Build' })).toHaveAttribute('aria-disabled', 'true')
    await userEvent.click(within(done).getByRole('button', { name: 'Re-plan' }))
    // A re-plan is its own call (the core records it as a rejection that is not a failure), never a Reject.
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'queue.replan').map((c) => c.input)).toEqual([
        { projectId: 1, id: 't-done' },
      ]),
    )
    expect(view.calls.some((c) => c.name === 'queue.reject')).toBe(false)
  })
})

describe('build notices', () => {
  afterEach(() => {
    window.location.hash = ''
  })

  it('raises a build’s notice on the desktop while the page is not focused; a click opens the Queue panel', async () => {
    const fake = createFakeTransport({ 'projects.get': () => projectDetail({ id: 4, name: 'coffee' }) })
    const shown: {
      title: string
      options?: NotificationOptions
      onclick: (() => void) | null
      close(): void
    }[] = []
    const api = class {
      static permission = 'granted'
      static requestPermission = vi.fn()
      onclick: (() => void) | null = null
      constructor(title: string, options?: NotificationOptions) {
        shown.push(Object.assign(this, { title, options, close: vi.fn() }))
      }
    } as unknown as NotificationApi
    startBrowserNotifications(createClient(fake.transport), api, () => false)
    fake.emit('queue.notice', {
      projectId: 4,
      notice: {
        event: 'escalation',
        taskId: 't-grid',
        title: 'A task needs you: it was escalated',
        message: 't-grid failed verification 3 times;\n rolled back to task-2-pre.',
        path: '.ralph/notifications/escalation-x.md',
      },
    })
    await vi.waitFor(() => expect(shown).toHaveLength(1))
    expect(shown[0]).toMatchObject({
      title: 'A task needs you: it was escalated · coffee',
      options: {
        body: 't-grid failed verification 3 times; rolled back to task-2-pre.',
        tag: 'ralph-build-4-escalation',
      },
    })
    shown[0]!.onclick!()
    expect(window.location.hash).toBe('#/project/4?panel=queue')
  })
})
