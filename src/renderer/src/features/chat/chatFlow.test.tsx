import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import type { ChatMessageDto } from '../../../../shared/api/chat'
import { chatHandlers } from '../../test/fixtures'
import { renderInViewport } from '../../test/render'
import { useRuns } from '../../app/runStore'
import { Chat } from './Chat'
import { useChatUi } from './chatUi'
import { composerIntent } from './composerIntent'
import { requestOf } from './FailedTaskActions'
import { card, message } from './testData'

function renderChat(stored: ChatMessageDto[], handlers: Record<string, (input: unknown) => unknown> = {}) {
  return renderInViewport(<Chat projectId={1} />, {
    ...chatHandlers(),
    'chat.history': () => ({ conversationId: 1, messages: stored, nextBefore: null, pendingQuestion: null }),
    'tasks.running': () => ({ running: false }),
    'chat.send': () => ({ conversationId: 1, messageId: 99, queued: false }),
    ...handlers,
  })
}

const queuedCard = (id: number) =>
  message({
    id,
    kind: 'task',
    mode: null,
    text: '',
    card: card({ task: null, runId: null, status: 'queued' }),
  })

describe('chat flow', () => {
  beforeEach(() => {
    useRuns.setState({ runs: {} })
    useChatUi.setState({ mode: {}, draft: {}, viewing: {}, keptQueued: {}, focus: {} })
  })

  it('says what the next message does in each state, the waiting question before a new task', () => {
    const pending = { task: 3, runId: 3, title: 'Night drinks', question: 'Which?' }
    const base = { mode: 'task' as const, pending: null, running: false, runningTask: null, building: false }
    expect(composerIntent(base).label).toBe('New task')
    expect(composerIntent({ ...base, mode: 'ask', pending }).label).toBe('Ask a question (changes nothing)')
    expect(composerIntent({ ...base, pending }).label).toBe('Answer Ralph’s question about Night drinks')
    expect(composerIntent({ ...base, running: true, runningTask: 5 }).label).toBe('Queued after task 5')
    expect(composerIntent({ ...base, running: true }).label).toBe('Queued after the running task')
  })

  it('finds the message that asked for a card, older than the card', () => {
    const failed = card({ status: 'failed', runId: 7 })
    const messages = [
      message({ id: 5, text: 'later' }),
      message({ id: 4, kind: 'task', mode: null, text: '', card: failed }),
      message({ id: 3, text: 'add a gallery' }),
    ]
    expect(requestOf(messages, failed)).toBe('add a gallery')
    expect(requestOf(messages, card({ runId: 99 }))).toBeNull()
  })

  it('asks what to do with queued messages after a Stop: Remove them removes each', async () => {
    const view = renderChat(
      [
        queuedCard(6),
        message({ id: 5, text: 'then b' }),
        queuedCard(4),
        message({ id: 3, text: 'then a' }),
        message({ id: 2, kind: 'task', mode: null, text: '', card: card({ task: 2, status: 'stopped' }) }),
        message({ id: 1, text: 'do it' }),
      ],
      { 'chat.removeQueued': () => ({ removed: true }) },
    )
    const prompt = await screen.findByRole('group', { name: 'Queued after Stop' })
    expect(prompt).toHaveTextContent(
      'Task 2 was stopped. 2 queued messages wait behind it and did not start.',
    )
    await userEvent.click(within(prompt).getByRole('button', { name: 'Remove them' }))
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'chat.removeQueued').map((c) => c.input)).toEqual([
        { projectId: 1, messageId: 4 },
        { projectId: 1, messageId: 6 },
      ]),
    )
  })

  it('keeps them queued when asked, and runs the oldest first with Run them', async () => {
    const stored = [
      queuedCard(6),
      queuedCard(4),
      message({ id: 2, kind: 'task', mode: null, text: '', card: card({ task: 2, status: 'stopped' }) }),
    ]
    const view = renderChat(stored, { 'chat.startQueued': () => ({ started: true }) })
    const prompt = await screen.findByRole('group', { name: 'Queued after Stop' })
    await userEvent.click(within(prompt).getByRole('button', { name: 'Run them' }))
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'chat.startQueued').map((c) => c.input)).toEqual([
        { projectId: 1, messageId: 4 },
      ]),
    )
    await userEvent.click(within(prompt).getByRole('button', { name: 'Keep them queued' }))
    expect(screen.queryByRole('group', { name: 'Queued after Stop' })).toBeNull()
  })

  it('offers Retry and Edit and resend on a failed card, and Settings for a provider error', async () => {
    const failed = card({ task: 2, runId: 2, status: 'failed', reason: 'provider', outcome: 'Bad key.' })
    const view = renderChat([
      message({ id: 2, kind: 'task', mode: null, text: '', card: failed }),
      message({ id: 1, text: 'add a gallery' }),
    ])
    const actions = await screen.findByRole('group', { name: 'After the failure' })
    expect(
      within(actions).getByRole('link', { name: 'Check the model provider in Settings' }),
    ).toHaveAttribute('href', '#/settings')
    await userEvent.click(within(actions).getByRole('button', { name: 'Edit and resend' }))
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveValue('add a gallery')
    await userEvent.click(within(actions).getByRole('button', { name: 'Retry' }))
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'chat.send').map((c) => c.input)).toEqual([
        expect.objectContaining({ mode: 'task', text: 'add a gallery' }),
      ]),
    )
  })

  it('dismisses a waiting question from its card, and Answer puts the caret in the message box', async () => {
    const waiting = card({ task: 3, runId: 3, status: 'waiting', outcome: 'Which page?' })
    const view = renderChat([message({ id: 2, kind: 'task', mode: null, text: '', card: waiting })], {
      // The call is still in flight when the second click of the double click lands.
      'chat.dismissQuestion': () => new Promise((resolve) => setTimeout(() => resolve({ task: 3 }), 200)),
    })
    const actions = await screen.findByRole('group', { name: 'Ralph’s question' })
    await userEvent.click(within(actions).getByRole('button', { name: 'Answer' }))
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveFocus()
    await userEvent.dblClick(within(actions).getByRole('button', { name: 'Dismiss' }))
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'chat.dismissQuestion').map((c) => c.input)).toEqual([
        { projectId: 1, task: 3 },
      ]),
    )
  })
})
