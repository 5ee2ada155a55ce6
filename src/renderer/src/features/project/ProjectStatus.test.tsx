import { screen, waitFor, within } from '@testing-library/react'
import { beforeEach, describe, expect, it } from 'vitest'
import { idleBuild, type BuildProgress } from '../../../../shared/queueBuild'
import { App } from '../../app/App'
import { appInfo, chatHandlers, projectDetail } from '../../test/fixtures'
import { renderInViewport } from '../../test/render'
import { buildHeadline, buildPosition, useSeenBuilds } from '../queue/buildState'
import { approvalAsked, buildStarted, finished, foldBuild, secondTaskRunning } from '../queue/buildTestData'
import { useProjectUi } from '../../app/projectUi'
import { useRuns } from '../../app/runStore'

describe('buildHeadline', () => {
  it('says nothing without a build, or after one that ended well', () => {
    expect(buildHeadline(idleBuild())).toBeNull()
    expect(buildHeadline(foldBuild([...secondTaskRunning, finished('complete', 'All done.')]))).toBeNull()
    expect(buildHeadline(foldBuild([...secondTaskRunning, finished('stopped', 'Stopped.')]))).toBeNull()
  })

  it('counts the task being built in the build order, naming it', () => {
    expect(buildHeadline(foldBuild([buildStarted]))).toEqual({
      tone: 'accent',
      label: 'Building',
      detail: null,
      hint: 'Reading the queue and taking the baseline',
    })
    const p = foldBuild(secondTaskRunning)
    expect(buildPosition(p)).toEqual({ index: 2, total: 3 })
    expect(buildHeadline(p)).toEqual({
      tone: 'accent',
      label: 'Building · 2 of 3',
      detail: 'Write b.txt',
      hint: 'Write b.txt (t-b), attempt 1 of 3: Iteration 1 of 10 (build)',
    })
  })

  it('says when the build waits for approval, is escalated, paused or failed', () => {
    expect(buildHeadline(foldBuild([...secondTaskRunning, approvalAsked]))).toMatchObject({
      tone: 'warn',
      label: 'Waiting for approval',
      detail: 'Write b.txt',
      hint: 'Write b.txt passed verification. Accept it?',
    })
    const ended = (status: Parameters<typeof finished>[0]) =>
      buildHeadline(foldBuild([...secondTaskRunning, finished(status, `why ${status}`)]))
    // Beside the badge the task it ended on; why, in the tooltip.
    const on = { detail: 'Write b.txt' }
    expect(ended('escalated')).toEqual({ tone: 'bad', label: 'Escalated', ...on, hint: 'why escalated' })
    expect(ended('paused')).toEqual({ tone: 'warn', label: 'Paused', ...on, hint: 'why paused' })
    expect(ended('budget')).toEqual({ tone: 'warn', label: 'Paused · budget', ...on, hint: 'why budget' })
    expect(ended('failed')).toEqual({ tone: 'bad', label: 'Build failed', ...on, hint: 'why failed' })
  })
})

/** The whole app on a project whose core reports `progress` as its panel build. */
function renderProject(state: { progress: BuildProgress; running: boolean }) {
  window.location.hash = '#/project/1'
  return renderInViewport(<App />, {
    ...chatHandlers(),
    'app.info': () => appInfo(),
    'projects.list': () => [projectDetail()],
    'projects.get': () => projectDetail(),
    'snapshots.list': () => ({ items: [], total: 0 }),
    'tasks.running': () => ({ running: state.running }),
    'queue.buildStatus': () => state.progress,
    'queue.verdicts': () => ({ verifications: [] }),
  })
}

const headerStatus = () => screen.getByRole('status', { name: 'Project status' })

describe('project header: a build from the Queue panel', () => {
  beforeEach(() => {
    useProjectUi.setState({ sidePanelCollapsed: true })
    useRuns.setState({ runs: {} })
    useSeenBuilds.setState({ dismissed: {} })
  })

  it('says Ready without a build, then "Building · 2 of 3" with the task beside it as events arrive', async () => {
    const state = { progress: idleBuild(), running: false }
    const view = renderProject(state)
    await screen.findByTestId('project-name')
    await waitFor(() => expect(headerStatus()).toHaveTextContent('Ready'))

    // The build holds the task lock, so the core also says a task runs: the build's words win.
    state.progress = foldBuild(secondTaskRunning)
    state.running = true
    view.emit('queue.buildEvent', { projectId: 1, event: secondTaskRunning.at(-1)! })
    await waitFor(() => expect(headerStatus()).toHaveTextContent('Building · 2 of 3'))
    const detail = within(headerStatus()).getByText('Write b.txt')
    expect(detail).toHaveAttribute('title', 'Write b.txt (t-b), attempt 1 of 3: Iteration 1 of 10 (build)')

    state.progress = foldBuild([...secondTaskRunning, approvalAsked])
    view.emit('queue.buildEvent', { projectId: 1, event: approvalAsked })
    await waitFor(() => expect(headerStatus()).toHaveTextContent('Waiting for approval'))
  })

  it('keeps an escalated build in the header after it ends, asking again whether a task runs', async () => {
    const state = { progress: foldBuild(secondTaskRunning), running: true }
    const view = renderProject(state)
    await waitFor(() => expect(headerStatus()).toHaveTextContent('Building · 2 of 3'))

    const end = finished('escalated', 'Write b.txt failed verification 3 times: rolled back to task-2-pre.')
    state.progress = foldBuild([...secondTaskRunning, end])
    state.running = false
    const asked = view.calls.filter((c) => c.name === 'tasks.running').length
    view.emit('queue.buildEvent', { projectId: 1, event: end })
    await waitFor(() => expect(headerStatus()).toHaveTextContent('Escalated'))
    expect(within(headerStatus()).getByText('Write b.txt')).toHaveAttribute(
      'title',
      'Write b.txt failed verification 3 times: rolled back to task-2-pre.',
    )
    // The lock's "running" from during the build is read again, not trusted.
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'tasks.running').length).toBeGreaterThan(asked),
    )
    expect(headerStatus()).toHaveTextContent('Escalated')
  })

  it('shows a paused build until a chat task starts after it', async () => {
    const state = {
      progress: foldBuild([...secondTaskRunning, finished('paused', 'Write b.txt needs a person.')]),
      running: false,
    }
    renderProject(state)
    await waitFor(() => expect(headerStatus()).toHaveTextContent('Paused'))
    // A task sent from the chat starts: the paused build is behind the user now.
    useRuns.getState().started(1)
    await waitFor(() => expect(headerStatus()).toHaveTextContent('Running'))
    useRuns.getState().onFinished(1, 3, { status: 'complete', message: 'done' })
    await waitFor(() => expect(headerStatus()).not.toHaveTextContent('Running'))
    expect(headerStatus()).not.toHaveTextContent('Paused')
  })
})
