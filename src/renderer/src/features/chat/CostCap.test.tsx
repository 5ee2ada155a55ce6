import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import { chatHandlers } from '../../test/fixtures'
import { renderInViewport, renderWithProviders, sentInput } from '../../test/render'
import { useRuns } from '../../app/runStore'
import { Chat } from './Chat'
import { useChatUi } from './chatUi'
import { parseCostCap, useCostCaps } from './costCap'
import { TaskCard } from './TaskCard'
import { card } from './testData'

function renderChat() {
  return renderInViewport(<Chat projectId={1} />, {
    ...chatHandlers(),
    'tasks.running': () => ({ running: false }),
    'chat.send': () => ({ conversationId: 1, messageId: 99, queued: false }),
  })
}

describe('the composer’s cost cap', () => {
  beforeEach(() => {
    localStorage.clear()
    useRuns.setState({ runs: {} })
    useChatUi.setState({ mode: {}, draft: {}, viewing: {} })
    useCostCaps.setState({ text: {} })
  })

  it('is sent with the next task, remembered per project, and left out when empty or in Ask mode', async () => {
    const view = renderChat()
    const cap = await screen.findByRole('textbox', { name: 'Cost cap in dollars' })
    await userEvent.type(cap, '0.50')
    expect(JSON.parse(localStorage.getItem('ralph.chat.costCaps')!)).toEqual({ 1: '0.50' })
    const box = screen.getByRole('textbox', { name: 'Message' })
    await userEvent.type(box, 'greet the world{Control>}{Enter}{/Control}')
    const capped = { projectId: 1, mode: 'task', text: 'greet the world', maxCostUsd: 0.5 }
    await waitFor(() => expect(sentInput(view, 'chat.send')).toEqual(capped))
    // Still set for the task after it.
    expect(cap).toHaveValue('0.50')

    await userEvent.click(
      within(screen.getByRole('radiogroup', { name: 'Mode' })).getByRole('radio', { name: 'Ask' }),
    )
    expect(screen.queryByRole('textbox', { name: 'Cost cap in dollars' })).toBeNull()
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'why?{Control>}{Enter}{/Control}')
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'chat.send').at(-1)?.input).toEqual({
        projectId: 1,
        mode: 'ask',
        text: 'why?',
      }),
    )
  })

  it('says what is wrong with a cap that is not a positive number, and Send waits for it', async () => {
    renderChat()
    const cap = await screen.findByRole('textbox', { name: 'Cost cap in dollars' })
    await userEvent.type(cap, 'ten')
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Enter the cost cap as a number, e.g. 2.50 (US dollars), or leave it empty for no limit.',
    )
    expect(cap).toHaveAttribute('aria-invalid', 'true')
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'greet')
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled()
    await userEvent.clear(cap)
    await userEvent.type(cap, '0')
    expect(screen.getByRole('alert')).toHaveTextContent('The cost cap must be more than 0')
    await userEvent.clear(cap)
    expect(screen.queryByRole('alert')).toBeNull()
    expect(screen.getByRole('button', { name: 'Send' })).toBeEnabled()
  })

  it('reads caps as the queue budget does', () => {
    expect(parseCostCap('')).toEqual({ usd: undefined, error: null })
    expect(parseCostCap('$1.25')).toEqual({ usd: 1.25, error: null })
    expect(parseCostCap('20000').error).toBe('The cost cap can be at most $10,000.')
  })
})

describe('a task card with a cost cap', () => {
  beforeEach(() => useRuns.setState({ runs: {} }))

  it('shows the cap while it runs, then the 75% warning', () => {
    renderWithProviders(
      <TaskCard projectId={1} card={card({ status: 'running', outcome: null, endedAt: null })} />,
    )
    expect(screen.queryByTestId('cost-cap')).toBeNull()
    act(() =>
      useRuns.getState().onEvent(1, {
        type: 'iteration.started',
        task: 1,
        iteration: 1,
        phase: 'build',
        maxIterations: 5,
        costCapUsd: 0.1,
      }),
    )
    const article = screen.getByRole('article', { name: 'Task 1: Greeting' })
    expect(within(article).getByTestId('cost-cap')).toHaveTextContent('Cost cap: $0.10')
    expect(article).toHaveTextContent('Running')
    act(() =>
      useRuns.getState().onEvent(1, {
        type: 'budget.warning',
        task: 1,
        iteration: 1,
        spentUsd: 0.08,
        capUsd: 0.1,
        message: 'Cost cap: $0.08 of $0.10 spent (75% reached); the task stops at the cap.',
      }),
    )
    expect(within(article).getByRole('status')).toHaveTextContent(
      '75% of the cost cap used: $0.08 of $0.10. The task stops when it reaches the cap.',
    )
  })

  it('says it stopped at the cap, with its status word', () => {
    const message =
      'Stopped: cost cap of $0.10 reached ($0.105 spent). The pre-task snapshot task-1-pre is intact and the files keep the work so far: roll back to it, or raise the cap and run the task again.'
    renderWithProviders(
      <TaskCard
        projectId={1}
        card={card({ status: 'failed', reason: 'cost-cap', detail: message, outcome: message })}
      />,
    )
    const article = screen.getByRole('article', { name: 'Task 1: Greeting' })
    expect(article).toHaveTextContent('Failed')
    expect(article).toHaveTextContent('Stopped: cost cap of $0.10 reached ($0.105 spent).')
    expect(within(article).getByRole('button', { name: 'Roll back to before this task' })).toBeEnabled()
  })
})
