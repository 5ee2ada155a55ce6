import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import type { ChatMessageDto } from '../../../../shared/api/chat'
import type { BuildProgress, QueueBuildEvent, Verification } from '../../../../shared/queueBuild'
import { chatHandlers } from '../../test/fixtures'
import { renderInViewport, sentInput } from '../../test/render'
import { useSeenBuilds } from '../queue/buildState'
import { approvalAsked, buildStarted, finished, foldBuild, secondTaskRunning } from '../queue/buildTestData'
import { useProjectUi } from '../../app/projectUi'
import { useRuns } from '../../app/runStore'
import { Chat } from './Chat'
import { useChatUi } from './chatUi'
import { card, message } from './testData'

const passed: Verification = {
  nonce: 'AAAAAA',
  at: 1,
  outcome: 'PASS',
  verdicts: [
    {
      id: 1,
      runId: 1,
      ref: 'AC1',
      kind: 'DET',
      criterion: 'a.txt says alpha',
      answer: 'YES',
      reason: 'exit 0',
      costUsd: 0,
      createdAt: 1,
    },
  ],
}

/**
 * The chat over a fake core running a panel build (`progress`). The build holds the task lock, so `tasks.running`
 * says yes, as the real core does.
 */
function renderChat(progress: BuildProgress, stored: ChatMessageDto[] = []) {
  const state = { progress }
  const view = renderInViewport(<Chat projectId={1} />, {
    ...chatHandlers(() => stored),
    'tasks.running': () => ({ running: state.progress.running }),
    'queue.buildStatus': () => state.progress,
    'queue.verdicts': (input) => ({
      verifications: (input as { taskId: string }).taskId === 't-a' ? [passed] : [],
    }),
    'queue.stopBuild': () => ({ stopped: true }),
    'chat.send': () => ({ conversationId: 1, messageId: 9, queued: false }),
  })
  const emit = (next: BuildProgress, event: QueueBuildEvent) => {
    state.progress = next
    view.emit('queue.buildEvent', { projectId: 1, event })
  }
  return { ...view, emit }
}

const strip = () => screen.findByRole('region', { name: 'Queue build' })

describe('chat: a build from the Queue panel', () => {
  beforeEach(() => {
    useRuns.setState({ runs: {} })
    useChatUi.setState({ mode: {}, draft: {}, viewing: {} })
    useSeenBuilds.setState({ dismissed: {} })
    useProjectUi.setState({ sidePanelCollapsed: true })
    window.location.hash = '#/project/1'
  })

  it('pins the running build above the composer: task, attempt, step, each task’s last verification', async () => {
    renderChat(foldBuild(secondTaskRunning))
    const region = await strip()
    expect(region).toHaveTextContent('Build running · task 2 of 3: Write b.txt')
    expect(region).toHaveTextContent('Attempt 1 of 3')
    expect(region).toHaveTextContent('Iteration 1 of 10 (build)')
    const tasks = within(region).getByRole('list', { name: 'Build tasks' })
    await within(tasks).findByRole('listitem', { name: 'Write a.txt: accepted, last verification PASS' })
    expect(within(tasks).getByRole('listitem', { name: 'Write b.txt: building' })).toBeInTheDocument()
    expect(tasks).toHaveTextContent('1 more waiting')
    // Not part of the conversation's rows: the log still shows its empty state.
    expect(within(screen.getByRole('log', { name: 'Conversation' })).queryByText('Build running')).toBeNull()
  })

  it('a parallel build: one live card per task in a lane, the other tasks listed below', async () => {
    const lane = (taskId: string, name: string, n: number, task: number): QueueBuildEvent[] => [
      { type: 'build.lane', taskId, lane: n, task, attempt: 1, base: 'b'.repeat(40) },
      { type: 'build.attempt', taskId, name, attempt: 1, task },
    ]
    const progress = foldBuild([
      buildStarted,
      ...lane('t-a', 'Write a.txt', 1, 1),
      ...lane('t-b', 'Write b.txt', 2, 2),
      ...lane('t-c', 'Write c.txt', 3, 3),
      { type: 'build.merged', taskId: 't-a', task: 1, commit: 'c'.repeat(40), verifiedAgain: false },
      { type: 'build.accepted', taskId: 't-a', commit: null },
      { type: 'iteration.started', task: 3, iteration: 2, phase: 'build', maxIterations: 10 },
    ])
    renderChat({ ...progress, lanes: progress.lanes.map((l) => ({ ...l, spentUsd: 0.0123 })) })
    const region = await strip()
    expect(region).toHaveTextContent('Build running · 2 lanes at once')
    const cards = within(within(region).getByRole('list', { name: 'Running lanes' })).getAllByRole('article')
    expect(cards.map((c) => c.getAttribute('aria-label'))).toEqual([
      'Lane 2: Write b.txt',
      'Lane 3: Write c.txt',
    ])
    expect(cards[1]).toHaveTextContent('Building')
    expect(cards[1]).toHaveTextContent('Task 3 · Attempt 1 of 3 · Iteration 2 of 10')
    expect(cards[1]).toHaveTextContent('$0.0123')
    const tasks = within(region).getByRole('list', { name: 'Build tasks' })
    await within(tasks).findByRole('listitem', { name: 'Write a.txt: accepted, last verification PASS' })
    expect(within(tasks).queryByRole('listitem', { name: /^Write b\.txt/ })).toBeNull()
  })

  it('shows a verification in progress as verdicts so far', async () => {
    const verifying: QueueBuildEvent = {
      type: 'verify.started',
      taskId: 't-b',
      nonce: 'BBBBBB',
      criteria: [
        { ref: 'AC1', kind: 'DET', text: 'b.txt says beta' },
        { ref: 'AC2', kind: 'LLM', text: 'it reads well' },
      ],
      warnings: [],
    }
    renderChat(foldBuild([...secondTaskRunning, verifying]))
    const region = await strip()
    expect(within(region).getByRole('listitem', { name: 'Write b.txt: verifying' })).toHaveTextContent(
      '0 of 2 criteria checked',
    )
    expect(region).toHaveTextContent('Verifying 2 criteria')
  })

  it('Stop build stops the build (queue.stopBuild); Open Queue opens the Queue tab beside the chat', async () => {
    const view = renderChat(foldBuild(secondTaskRunning))
    const region = await strip()
    await userEvent.click(within(region).getByRole('button', { name: 'Stop build' }))
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'queue.stopBuild').map((c) => c.input)).toEqual([
        { projectId: 1 },
      ]),
    )
    expect(view.calls.some((c) => c.name === 'tasks.stop')).toBe(false)
    await userEvent.click(within(region).getByRole('button', { name: 'Open Queue' }))
    expect(window.location.hash).toBe('#/project/1?panel=queue')
    expect(useProjectUi.getState().sidePanelCollapsed).toBe(false)
  })

  it('says before typing that a Task message cannot start during a build; Ask mode still sends', async () => {
    const view = renderChat(foldBuild(secondTaskRunning))
    await strip()
    const note = await screen.findByTestId('composer-building')
    expect(note).toHaveTextContent(
      'A build is running: a Task message can’t start until it ends or you stop it.',
    )
    // The lock's "a task runs" is the build: no queueing promise, no task Stop.
    expect(screen.queryByTestId('composer-queueing')).toBeNull()
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull()
    const send = screen.getByRole('button', { name: 'Send' })
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'add a footer')
    expect(send).toHaveAttribute('aria-disabled', 'true')
    await userEvent.click(send)
    await userEvent.keyboard('{Control>}{Enter}{/Control}')
    expect(view.calls.some((c) => c.name === 'chat.send')).toBe(false)
    await userEvent.hover(send)
    expect(await screen.findByRole('tooltip')).toHaveTextContent(
      'A build is running: stop it or wait for it to end, then send this task (or switch to Ask).',
    )

    await userEvent.click(screen.getByRole('radio', { name: 'Ask' }))
    expect(screen.queryByTestId('composer-building')).toBeNull()
    // Without its reason the button is no longer wrapped in a tooltip: a new element.
    const askSend = screen.getByRole('button', { name: 'Send' })
    expect(askSend).not.toHaveAttribute('aria-disabled')
    await userEvent.click(askSend)
    await waitFor(() =>
      expect(sentInput(view, 'chat.send')).toEqual({
        projectId: 1,
        mode: 'ask',
        text: 'add a footer',
      }),
    )
  })

  it('says the build waits for approval, answered in the Queue', async () => {
    renderChat(foldBuild([...secondTaskRunning, approvalAsked]))
    const region = await strip()
    expect(region).toHaveTextContent(
      'Waiting for your approval: Write b.txt passed verification. Accept it? Answer it in the Queue.',
    )
    expect(within(region).getByRole('button', { name: 'Open Queue' })).toBeInTheDocument()
  })

  it('after an escalation, says why until dismissed; Send works again', async () => {
    const view = renderChat(foldBuild(secondTaskRunning))
    await strip()
    const end = finished('escalated', 'Write b.txt failed verification 3 times.')
    view.emit(foldBuild([...secondTaskRunning, end]), end)
    await waitFor(async () => expect(await strip()).toHaveTextContent('Build escalated'))
    const region = await strip()
    expect(region).toHaveTextContent('Write b.txt failed verification 3 times.')
    expect(within(region).queryByRole('button', { name: 'Stop build' })).toBeNull()
    expect(screen.queryByTestId('composer-building')).toBeNull()
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'fix b.txt')
    expect(screen.getByRole('button', { name: 'Send' })).not.toHaveAttribute('aria-disabled')

    await userEvent.click(within(region).getByRole('button', { name: 'Dismiss' }))
    expect(screen.queryByRole('region', { name: 'Queue build' })).toBeNull()
  })

  it('shows nothing once a build ended complete or stopped', async () => {
    const view = renderChat(foldBuild(secondTaskRunning))
    await strip()
    const end = finished('complete', 'Every task was accepted.')
    view.emit(foldBuild([...secondTaskRunning, end]), end)
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Queue build' })).toBeNull())
    await waitFor(() => expect(screen.queryByTestId('composer-building')).toBeNull())
  })

  it('a queued chat task cannot be started during a build, and says why', async () => {
    const queued = message({ kind: 'task', mode: null, text: '', card: card({ status: 'queued' }) })
    renderChat(foldBuild(secondTaskRunning), [queued])
    const item = await screen.findByRole('article', { name: 'Queued task' })
    await waitFor(() =>
      expect(item).toHaveTextContent('Waiting: start it once the build ends, or remove it.'),
    )
    const start = within(item).getByRole('button', { name: 'Start now' })
    expect(start).toHaveAttribute('aria-disabled', 'true')
    await userEvent.hover(start)
    expect(await screen.findByRole('tooltip')).toHaveTextContent(
      'A build is running: start this task after it ends or is stopped.',
    )
  })
})
