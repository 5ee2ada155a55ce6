import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import { MESSAGE_MAX_CHARS, type ChatMessageDto, type PendingQuestionDto } from '../../../../shared/api/chat'
import { chatConversation, chatHandlers } from '../../test/fixtures'
import { renderInViewport, sentInput } from '../../test/render'
import { useRuns } from '../../app/runStore'
import { Chat } from './Chat'
import { useChatUi } from './chatUi'
import { useLiveAnswers } from './liveAnswers'
import { card, message } from './testData'

/** The chat over a fake core whose history is `stored` (newest first), paged like the real one. */
function renderChat(
  stored: ChatMessageDto[] = [],
  handlers: Record<string, (input: unknown) => unknown> = {},
  pendingQuestion: PendingQuestionDto | null = null,
) {
  const state = { stored, running: false }
  const view = renderInViewport(<Chat projectId={1} />, {
    ...chatHandlers(),
    'chat.history': (input) => {
      const { before, limit = 50 } = input as { before?: number; limit?: number }
      const older = state.stored.filter((m) => before === undefined || m.id < before)
      const page = older.slice(0, limit)
      return {
        conversationId: 1,
        messages: page,
        nextBefore: older.length > limit ? page.at(-1)!.id : null,
        ...(before === undefined ? { pendingQuestion } : {}),
      }
    },
    'tasks.running': () => ({ running: state.running }),
    'chat.send': () => ({ conversationId: 1, messageId: 99 }),
    'tasks.stop': () => ({ stopped: true }),
    ...handlers,
  })
  return { ...view, state }
}

describe('chat', () => {
  beforeEach(() => {
    useRuns.setState({ runs: {} })
    useChatUi.setState({ mode: {}, draft: {}, viewing: {} })
    useLiveAnswers.setState({ text: {} })
  })

  it('names the conversation after the first message the user wrote, never after a notice alone', async () => {
    const notice = message({ kind: 'notice', text: 'Rolled back to manual-1.', mode: null })
    const { unmount } = renderChat([notice])
    await screen.findByText('Rolled back to manual-1.')
    // Only the button says "New conversation": a conversation of notices has no title yet.
    expect(screen.getAllByText('New conversation')).toHaveLength(1)
    unmount()
    renderChat([message({ text: 'make it blue' })], {
      'chat.conversations': () => ({
        current: { ...chatConversation, title: 'make it blue' },
        items: [{ ...chatConversation, title: 'make it blue' }],
      }),
    })
    await waitFor(() => expect(screen.getAllByText('make it blue')).toHaveLength(2))
  })

  it('starts empty with what Ralph does and example requests that fill the box', async () => {
    renderChat()
    const log = await screen.findByRole('log', { name: 'Conversation' })
    await within(log).findByText('Tell Ralph what to build')
    await userEvent.click(within(log).getByRole('button', { name: /coffee shop/ }))
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveValue(
      'Create a single-page site for a coffee shop with its menu and opening hours',
    )
  })

  it('shows the stored conversation, oldest at the top, cards named by their task', async () => {
    renderChat([
      message({
        id: 4,
        kind: 'task',
        mode: null,
        text: '',
        card: card({ task: 2, title: 'Dark mode', status: 'failed' }),
      }),
      message({ id: 3, text: 'add dark mode' }),
      message({ id: 2, kind: 'task', mode: null, text: '', card: card() }),
      message({ id: 1, text: 'greet the world' }),
    ])
    const log = await screen.findByRole('log', { name: 'Conversation' })
    const first = await within(log).findByRole('article', { name: 'Task 1: Greeting' })
    const second = within(log).getByRole('article', { name: 'Task 2: Dark mode' })
    expect(first).toHaveTextContent('Complete')
    expect(second).toHaveTextContent('Failed')
    expect(first.compareDocumentPosition(second) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy()
    expect(within(log).getByText('greet the world')).toBeInTheDocument()
  })

  it('reads older pages when the top of the log comes into view', async () => {
    const stored = Array.from({ length: 40 }, (_, i) => message({ id: 40 - i, text: `message ${40 - i}` }))
    const view = renderChat(stored)
    const log = await screen.findByRole('log', { name: 'Conversation' })
    await within(log).findByText('message 40')
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'chat.history').map((c) => c.input)).toContainEqual({
        projectId: 1,
        limit: 30,
        before: 11,
      }),
    )
    expect(await within(log).findByText('message 1')).toBeInTheDocument()
  })

  it('sends a task with Ctrl+Enter, then offers Stop while it runs', async () => {
    const view = renderChat()
    const box = await screen.findByRole('textbox', { name: 'Message' })
    const mode = screen.getByRole('radiogroup', { name: 'Mode' })
    expect(within(mode).getByRole('radio', { name: 'Task' })).toBeChecked()
    await userEvent.type(box, 'greet the world{Control>}{Enter}{/Control}')
    const task = { projectId: 1, mode: 'task', text: 'greet the world' }
    await waitFor(() => expect(sentInput(view, 'chat.send')).toEqual(task))
    await waitFor(() => expect(box).toHaveValue(''))
    await userEvent.click(await screen.findByRole('button', { name: 'Stop' }))
    expect(view.calls.some((c) => c.name === 'tasks.stop')).toBe(true)
    // While the task runs, another message is still sent: the composer says it will wait its turn, and the
    // running task's Stop stays.
    await userEvent.type(box, 'next one')
    expect(screen.getByTestId('composer-queueing')).toHaveTextContent('starts when it ends')
    await userEvent.click(screen.getByRole('button', { name: 'Send' }))
    await waitFor(() => expect(view.calls.filter((c) => c.name === 'chat.send').length).toBe(2))
    expect(screen.getByRole('button', { name: 'Stop' })).toBeInTheDocument()
    act(() => view.emit('loop.finished', { projectId: 1, task: 1, status: 'complete', message: 'done' }))
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull())
    expect(screen.queryByTestId('composer-queueing')).toBeNull()
  })

  it('shows a queued task with Start now (refused while a task runs, saying why) and Remove', async () => {
    const view = renderChat(
      [
        message({ id: 3, kind: 'task', mode: null, text: '', card: card({ status: 'queued', task: null }) }),
        message({ id: 2, kind: 'user', mode: 'task', text: 'write b' }),
        message({
          id: 1,
          kind: 'task',
          mode: null,
          text: '',
          card: card({ status: 'running', outcome: null }),
        }),
      ],
      { 'chat.removeQueued': () => ({ removed: true }), 'tasks.running': () => ({ running: true }) },
    )
    const queued = await screen.findByRole('article', { name: 'Queued task' })
    expect(queued).toHaveTextContent('Queued')
    expect(queued).toHaveTextContent('Starts when the running task ends.')
    const start = within(queued).getByRole('button', { name: 'Start now' })
    expect(start).toHaveAttribute('aria-disabled', 'true')
    await userEvent.click(start)
    expect(view.calls.some((c) => c.name === 'chat.startQueued')).toBe(false)
    await userEvent.click(within(queued).getByRole('button', { name: 'Remove' }))
    await waitFor(() =>
      expect(view.calls.find((c) => c.name === 'chat.removeQueued')?.input).toEqual({
        projectId: 1,
        messageId: 3,
      }),
    )
  })

  it('refetches the history when the loop reports progress or the chat changes', async () => {
    const view = renderChat()
    await screen.findByRole('log', { name: 'Conversation' })
    await waitFor(() => expect(view.calls.filter((c) => c.name === 'chat.history').length).toBe(1))
    view.state.stored = [
      message({
        id: 2,
        kind: 'task',
        mode: null,
        text: '',
        card: card({ status: 'running', outcome: null }),
      }),
    ]
    act(() => view.emit('chat.changed', { projectId: 1, conversationId: 1 }))
    expect(await screen.findByRole('article', { name: 'Task 1: Greeting' })).toHaveTextContent('Running')
    view.state.stored = [message({ id: 2, kind: 'task', mode: null, text: '', card: card() })]
    act(() =>
      view.emit('loop.event', {
        projectId: 1,
        event: {
          type: 'task.completed',
          task: 1,
          summary: 'ok',
          iterations: 2,
          postTag: 'task-1-post',
          costUsd: 0,
        },
      }),
    )
    await waitFor(() =>
      expect(screen.getByRole('article', { name: 'Task 1: Greeting' })).toHaveTextContent('Complete'),
    )
  })

  it('focuses the box with Ctrl+K and stops a running task with Esc after a confirmation', async () => {
    const view = renderChat()
    const box = await screen.findByRole('textbox', { name: 'Message' })
    await userEvent.keyboard('{Control>}k{/Control}')
    expect(box).toHaveFocus()
    // Nothing runs: Esc does nothing.
    await userEvent.keyboard('{Escape}')
    expect(screen.queryByRole('alertdialog')).toBeNull()

    act(() =>
      view.emit('loop.event', {
        projectId: 1,
        event: { type: 'task.started', task: 1, message: 'go', continued: false },
      }),
    )
    await screen.findByRole('button', { name: 'Stop' })
    await userEvent.keyboard('{Escape}')
    const dialog = await screen.findByRole('alertdialog', { name: 'Stop the running task?' })
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus()
    expect(view.calls.some((c) => c.name === 'tasks.stop')).toBe(false)
    await userEvent.click(within(dialog).getByRole('button', { name: 'Stop task' }))
    await waitFor(() => expect(view.calls.some((c) => c.name === 'tasks.stop')).toBe(true))
  })

  it('asks in Ask mode and streams the answer into its own line', async () => {
    const view = renderChat()
    await userEvent.click(await screen.findByRole('radio', { name: 'Ask' }))
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'what is this?')
    await userEvent.click(screen.getByRole('button', { name: 'Send' }))
    await waitFor(() =>
      expect(sentInput(view, 'chat.send')).toMatchObject({
        mode: 'ask',
        text: 'what is this?',
      }),
    )
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull()
    view.state.stored = [
      message({ id: 8, kind: 'answer', mode: null, text: '' }),
      message({ id: 7, mode: 'ask', text: 'what is this?' }),
    ]
    act(() => view.emit('chat.changed', { projectId: 1, conversationId: 1 }))
    const log = screen.getByRole('log', { name: 'Conversation' })
    await within(log).findByText('Thinking…')
    act(() => {
      view.emit('chat.delta', { projectId: 1, messageId: 8, text: 'A coffee ' })
      view.emit('chat.delta', { projectId: 1, messageId: 8, text: 'shop site.' })
    })
    expect(within(log).getByText('A coffee shop site.')).toBeInTheDocument()
    // While it writes, Stop ends the answer (no task runs, so nothing asks to confirm, and Esc does the same).
    view.handlers['chat.stopAnswer'] = () => ({ stopped: true })
    await userEvent.click(screen.getByRole('button', { name: 'Stop' }))
    await waitFor(() => expect(view.calls.filter((c) => c.name === 'chat.stopAnswer')).toHaveLength(1))
    expect(view.calls.some((c) => c.name === 'tasks.stop')).toBe(false)
    await userEvent.keyboard('{Escape}')
    await waitFor(() => expect(view.calls.filter((c) => c.name === 'chat.stopAnswer')).toHaveLength(2))
    expect(screen.queryByRole('alertdialog')).toBeNull()
  })

  it('starts a new conversation and reads past ones without a composer', async () => {
    const past = { ...chatConversation, id: 1, title: 'greet the world', messageCount: 2, current: false }
    const current = { ...chatConversation, id: 2, current: true }
    const view = renderChat([], {
      'chat.conversations': () => ({ current, items: [current, past] }),
      'chat.newConversation': () => current,
      'chat.history': (input) =>
        (input as { conversationId?: number }).conversationId === 1
          ? {
              conversationId: 1,
              messages: [message({ id: 1, conversationId: 1, text: 'greet the world' })],
              nextBefore: null,
            }
          : { conversationId: 2, messages: [], nextBefore: null },
    })
    await userEvent.click(await screen.findByRole('button', { name: 'New conversation' }))
    await waitFor(() => expect(view.calls.some((c) => c.name === 'chat.newConversation')).toBe(true))

    await userEvent.click(screen.getByRole('button', { name: 'Past conversations' }))
    await userEvent.click(await screen.findByRole('menuitem', { name: 'greet the world (2)' }))
    const log = screen.getByRole('log', { name: 'Conversation' })
    expect(await within(log).findByText('greet the world')).toBeInTheDocument()
    expect(screen.getByText(/A past conversation: read only/)).toBeInTheDocument()
    expect(screen.queryByRole('textbox', { name: 'Message' })).toBeNull()
    await userEvent.click(screen.getByRole('button', { name: 'Back to the current conversation' }))
    expect(await screen.findByRole('textbox', { name: 'Message' })).toBeInTheDocument()
    await within(log).findByText('Tell Ralph what to build')
  })

  it('says when the next message answers a waiting task, and sends it as that answer', async () => {
    const sent: unknown[] = []
    renderChat(
      [
        message({
          id: 2,
          kind: 'task',
          mode: null,
          text: '',
          card: card({ status: 'waiting', outcome: 'Which page?', title: 'Fix the menu' }),
        }),
      ],
      {
        'chat.send': (input) => {
          sent.push(input)
          return { conversationId: 1, messageId: 99, queued: false }
        },
      },
      { task: 1, runId: 1, title: 'Fix the menu', question: 'Which page?' },
    )
    expect(await screen.findByTestId('composer-answering')).toHaveTextContent('answers task 1’s question')
    expect(screen.getByTestId('composer-intent')).toHaveTextContent(
      'Answer Ralph’s question about Fix the menu',
    )
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveAttribute(
      'placeholder',
      'Answer Ralph’s question to continue task 1…',
    )
    // The card offers Answer and Dismiss; the composer offers Dismiss too.
    expect(await screen.findByRole('group', { name: 'Ralph’s question' })).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Dismiss the question' })).toBeInTheDocument()
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'the home page')
    await userEvent.click(screen.getByRole('button', { name: 'Send' }))
    await waitFor(() =>
      expect(sent).toEqual([expect.objectContaining({ text: 'the home page', answering: 1 })]),
    )
  })

  it('offers the waiting question’s answers as quick replies in the composer too: one click answers', async () => {
    const sent: unknown[] = []
    const waiting = card({ status: 'waiting', outcome: 'Which page?', title: 'Fix the menu' })
    renderChat(
      [
        message({
          id: 2,
          kind: 'task',
          mode: null,
          text: '',
          card: {
            ...waiting,
            questions: [{ text: 'Which page?', options: ['The home page', 'The menu page'] }],
          },
        }),
      ],
      {
        'chat.send': (input) => {
          sent.push(input)
          return { conversationId: 1, messageId: 99, queued: false }
        },
      },
      { task: 1, runId: 1, title: 'Fix the menu', question: 'Which page?' },
    )
    const replies = await screen.findByRole('group', { name: 'Quick replies to task 1’s question' })
    expect(within(screen.getByTestId('composer-intent')).getByRole('group')).toBe(replies)
    expect(
      within(replies)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['The home page', 'The menu page'])
    await userEvent.click(within(replies).getByRole('button', { name: 'The menu page' }))
    await waitFor(() =>
      expect(sent).toEqual([expect.objectContaining({ mode: 'task', text: 'The menu page', answering: 1 })]),
    )
  })

  it('shows no quick replies in the composer for a question that named no answers', async () => {
    renderChat(
      [
        message({
          id: 2,
          kind: 'task',
          mode: null,
          text: '',
          card: card({ status: 'waiting', outcome: 'Which page?', title: 'Fix the menu' }),
        }),
      ],
      {},
      { task: 1, runId: 1, title: 'Fix the menu', question: 'Which page?' },
    )
    await screen.findByTestId('composer-answering')
    expect(within(screen.getByTestId('composer-intent')).queryByRole('group')).toBeNull()
  })

  it('says what the next message does: a new task, a queued one, a question', async () => {
    renderChat([message({ id: 1, text: 'hello' })])
    const intent = await screen.findByTestId('composer-intent')
    expect(intent).toHaveTextContent('New task')
    await userEvent.click(screen.getByRole('radio', { name: 'Ask' }))
    expect(intent).toHaveTextContent('Ask a question (changes nothing)')
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveAttribute(
      'placeholder',
      'Ask about the project…',
    )
  })

  it('says a message sent while a task runs is queued after that task', async () => {
    renderChat(
      [message({ id: 3, kind: 'task', mode: null, text: '', card: card({ task: 4, status: 'running' }) })],
      { 'tasks.running': () => ({ running: true }) },
    )
    await waitFor(() =>
      expect(screen.getByTestId('composer-intent')).toHaveTextContent('Queued after task 4'),
    )
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveAttribute(
      'placeholder',
      'Describe the next task…',
    )
  })

  it('counts characters near the limit and blocks Send past it, saying why', async () => {
    renderChat()
    const box = await screen.findByRole('textbox', { name: 'Message' })
    act(() => useChatUi.getState().setDraft(1, 'x'.repeat(MESSAGE_MAX_CHARS + 12)))
    expect(await screen.findByTestId('composer-counter')).toHaveTextContent(
      '100,012 / 100,000 characters · 12 over the limit',
    )
    expect(screen.getByTestId('composer-counter')).toHaveTextContent('shorten it to send')
    expect(screen.getByRole('button', { name: 'Send' })).toHaveAttribute('aria-disabled', 'true')
    act(() => useChatUi.getState().setDraft(1, 'x'.repeat(MESSAGE_MAX_CHARS)))
    expect(screen.getByTestId('composer-counter')).not.toHaveTextContent('over the limit')
    expect(screen.getByRole('button', { name: 'Send' })).not.toHaveAttribute('aria-disabled')
    act(() => useChatUi.getState().setDraft(1, 'short'))
    expect(screen.queryByTestId('composer-counter')).toBeNull()
    expect(box).toHaveValue('short')
  })

  it('shows a refused send in the composer and keeps the text', async () => {
    renderChat([], {
      'chat.send': () => {
        throw new Error('No LLM provider is configured.')
      },
    })
    const box = await screen.findByRole('textbox', { name: 'Message' })
    await userEvent.type(box, 'do it')
    await userEvent.click(screen.getByRole('button', { name: 'Send' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('No LLM provider is configured.')
    expect(box).toHaveValue('do it')
    expect(screen.queryByRole('button', { name: 'Stop' })).toBeNull()
  })
})
