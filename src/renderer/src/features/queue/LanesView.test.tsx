import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { VirtuosoMockContext } from 'react-virtuoso'
import { beforeEach, describe, expect, it } from 'vitest'
import {
  applyBuildEvent,
  idleBuild,
  type BuildProgress,
  type QueueBuildEvent,
} from '../../../../shared/queueBuild'
import type { QueueView } from '../../../../shared/queue'
import { renderWithProviders } from '../../test/render'
import { buildHeadline } from './buildState'
import { QueuePanel } from './QueuePanel'
import { useQueueUi } from './queueUi'
import { filledQueue } from './testData'

// The Build controls' Lanes and a parallel build's lanes in the Queue panel, over a fake core (#38).

const buildable = (): QueueView => {
  const q = filledQueue()
  return { ...q, tasks: q.tasks.filter((t) => t.status !== 'done') }
}

const fold = (events: QueueBuildEvent[], parallel = 3): BuildProgress => ({
  ...events.reduce((p, e) => applyBuildEvent(p, e, 1_000), idleBuild()),
  parallel,
})

const lane = (taskId: string, name: string, lane: number, task: number): QueueBuildEvent[] => [
  { type: 'build.lane', taskId, lane, task, attempt: 1, base: 'b'.repeat(40) },
  { type: 'build.attempt', taskId, name, attempt: 1, task },
]

/** Three lanes: one building in its second iteration, one waiting to merge, one verified again after a merge. */
const threeLanes: QueueBuildEvent[] = [
  {
    type: 'build.started',
    mode: 'hybrid',
    order: ['t-grid', 't-copy', 't-card'],
    budget: { maxCostUsd: null, maxMinutes: null },
  },
  ...lane('t-grid', 'Flavor grid', 1, 4),
  ...lane('t-copy', 'Menu copy', 2, 5),
  ...lane('t-card', 'Cards', 3, 6),
  { type: 'iteration.started', task: 4, iteration: 2, phase: 'build', maxIterations: 20 },
  {
    type: 'verify.started',
    taskId: 't-copy',
    nonce: 'AAAAAA',
    criteria: [{ ref: 'AC1', kind: 'DET', text: 'x' }],
    warnings: [],
  },
  {
    type: 'verify.completed',
    taskId: 't-copy',
    nonce: 'AAAAAA',
    outcome: 'PASS',
    costUsd: 0,
    feedback: '',
    durationMs: 1,
  },
]

function renderPanel(
  progress: () => BuildProgress,
  handlers: Record<string, (input: unknown) => unknown> = {},
) {
  return renderWithProviders(
    <VirtuosoMockContext.Provider value={{ viewportHeight: 10_000, itemHeight: 120 }}>
      <QueuePanel projectId={1} />
    </VirtuosoMockContext.Provider>,
    {
      'queue.state': () => buildable(),
      'queue.notifications': () => ({ items: [], total: 0 }),
      'queue.buildStatus': progress,
      'queue.verdicts': () => ({ verifications: [] }),
      'queue.escalations': () => ({ items: [] }),
      ...handlers,
    },
  )
}

describe('Queue panel: lanes', () => {
  beforeEach(() => useQueueUi.setState({ lanes: {} }))

  it('offers Lanes from the project’s default, sends the choice with Build, and shows the lanes side by side', async () => {
    let progress = idleBuild()
    const view = renderPanel(() => progress, {
      'queue.buildDefaults': () => ({ parallel: 2, maxParallel: 8, problem: null }),
      'queue.build': () => {
        progress = fold(threeLanes)
        return { started: true }
      },
    })
    const lanes = await screen.findByRole('combobox', { name: 'Lanes' })
    await waitFor(() => expect(lanes).toHaveValue('2'))
    expect(
      within(lanes)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['1 lane (one at a time)', ...[2, 3, 4, 5, 6, 7, 8].map((n) => `${n} lanes`)])
    await userEvent.selectOptions(lanes, '3')
    const build = screen.getByRole('button', { name: 'Build' })
    await waitFor(() => expect(build).not.toHaveAttribute('aria-disabled'))
    await userEvent.click(build)
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'queue.build').map((c) => c.input)).toEqual([
        { projectId: 1, mode: 'hybrid', parallel: 3 },
      ]),
    )

    const section = await screen.findByRole('region', { name: 'Build progress' })
    const list = await within(section).findByRole('list', { name: 'Lanes' })
    const cards = within(list).getAllByRole('article')
    expect(cards.map((c) => c.getAttribute('aria-label'))).toEqual([
      'Lane 1: Flavor grid',
      'Lane 2: Menu copy',
      'Lane 3: Cards',
    ])
    expect(cards[0]).toHaveTextContent('Building')
    expect(cards[0]).toHaveTextContent('Task 4 · Attempt 1 of 3 · Iteration 2 of 20')
    // The iteration once per card (#38): the step says what happens in it.
    expect(cards[0]).toHaveTextContent('Making the changes')
    expect(cards[0]!.textContent!.match(/Iteration/g)).toHaveLength(1)
    expect(cards[1]).toHaveTextContent('Waiting to merge')
    expect(cards[1]).toHaveTextContent('PASS: waiting to merge')
    // No single "current task" in a parallel build: its lanes are the progress.
    expect(section.querySelector('.queue-build-current')).toBeNull()
    expect(lanes).toBeDisabled()
    // The tasks in lanes cannot be edited while they build.
    const queue = screen.getByRole('list', { name: 'Work queue' })
    expect(within(queue).getAllByText('Building')).toHaveLength(3)
  })

  it('says why the project’s default cannot be read, and sends no choice the user did not make', async () => {
    const problem = '"lanes.parallel" in /p/.ralph/config.json is not valid (Too big).'
    const view = renderPanel(() => idleBuild(), {
      'queue.buildDefaults': () => ({ parallel: 1, maxParallel: 8, problem }),
      'queue.build': () => ({ started: true }),
    })
    const lanes = await screen.findByRole('combobox', { name: 'Lanes' })
    await waitFor(() => expect(lanes).toHaveAttribute('aria-invalid', 'true'))
    expect(lanes.getAttribute('title')).toContain(problem)
    const build = screen.getByRole('button', { name: 'Build' })
    await waitFor(() => expect(build).not.toHaveAttribute('aria-disabled'))
    await userEvent.click(build)
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'queue.build').map((c) => c.input)).toEqual([
        { projectId: 1, mode: 'hybrid' },
      ]),
    )
  })

  it('offers Workers beside Lanes from the project’s default, and sends only a choice the user made', async () => {
    const view = renderPanel(() => idleBuild(), {
      'queue.buildDefaults': () => ({ parallel: 1, maxParallel: 8, workers: 'docker', problem: null }),
      'queue.build': () => ({ started: true }),
    })
    const workers = await screen.findByRole('combobox', { name: 'Workers' })
    await waitFor(() => expect(workers).toHaveValue('docker'))
    expect(
      within(workers)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['On this machine', 'On Docker', 'On Kubernetes (experimental)'])
    expect(within(workers).getByRole('option', { name: 'On Kubernetes (experimental)' })).toHaveAttribute(
      'title',
      expect.stringContaining('has not yet run on a real cluster'),
    )
    const build = screen.getByRole('button', { name: 'Build' })
    await waitFor(() => expect(build).not.toHaveAttribute('aria-disabled'))
    await userEvent.click(build)
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'queue.build').map((c) => c.input)).toEqual([
        { projectId: 1, mode: 'hybrid' },
      ]),
    )
    await userEvent.selectOptions(workers, 'local')
    await userEvent.click(build)
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'queue.build').at(-1)?.input).toEqual({
        projectId: 1,
        mode: 'hybrid',
        workers: 'local',
      }),
    )
  })

  it('says on each lane card where its attempt runs, and a retry after a worker fault', async () => {
    const placed = fold([
      ...threeLanes,
      {
        type: 'build.worker',
        taskId: 't-grid',
        task: 4,
        lane: 1,
        attempt: 1,
        where: 'docker: build-box:2376',
      },
      { type: 'build.worker', taskId: 't-card', task: 6, lane: 3, attempt: 1, where: 'k8s: ralph/job-6' },
      {
        type: 'build.worker',
        taskId: 't-card',
        task: 6,
        lane: 3,
        attempt: 1,
        where: 'local',
        retryOf: { where: 'k8s: ralph/job-6', fault: 'The job passed its deadline.' },
      },
    ])
    renderPanel(() => ({ ...placed, running: true }))
    const list = await screen.findByRole('list', { name: 'Lanes' })
    const grid = within(list).getByRole('article', { name: 'Lane 1: Flavor grid' })
    expect(within(grid).getByText('docker: build-box:2376')).toHaveAttribute(
      'title',
      expect.stringContaining('merged and verified on this machine'),
    )
    const cards = within(list).getByRole('article', { name: 'Lane 3: Cards' })
    expect(cards).toHaveTextContent('retry on local')
    expect(cards).toHaveTextContent('Retried after k8s: ralph/job-6 failed: The job passed its deadline.')
    // A lane the build has not placed yet says nothing of where.
    expect(within(list).getByRole('article', { name: 'Lane 2: Menu copy' })).not.toHaveTextContent(
      /local|docker/,
    )
    expect(buildHeadline(placed)?.hint?.split('\n')[0]).toBe(
      'Lane 1: Flavor grid (t-grid): Iteration 2 of 20 · Making the changes · docker: build-box:2376',
    )
  })

  it('the header says "Building · N lanes" with the lanes’ tasks, and each lane’s step in the hint', () => {
    const headline = buildHeadline(fold(threeLanes))
    expect(headline).toMatchObject({ tone: 'accent', label: 'Building · 3 lanes', detail: 'Flavor grid +2' })
    expect(headline?.hint?.split('\n')).toEqual([
      'Lane 1: Flavor grid (t-grid): Iteration 2 of 20 · Making the changes',
      'Lane 2: Menu copy (t-copy): PASS: waiting to merge',
      'Lane 3: Cards (t-card): Starting',
    ])
    // Merged lanes are no longer held: one lane left.
    const merged = fold([
      ...threeLanes,
      { type: 'build.merged', taskId: 't-copy', task: 5, commit: 'c'.repeat(40), verifiedAgain: false },
      { type: 'build.merged', taskId: 't-grid', task: 4, commit: 'd'.repeat(40), verifiedAgain: true },
    ])
    expect(buildHeadline(merged)).toMatchObject({ label: 'Building · 1 lane', detail: 'Cards' })
  })
})
