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
    useCostCaps.setState({ text: {}, tokens: {} })
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

  it('warns before sending when the model has no price, and takes a price or a token cap (issue 37)', async () => {
    let priced = false
    const view = renderInViewport(<Chat projectId={1} />, {
      ...chatHandlers(),
      'tasks.running': () => ({ running: false }),
      'chat.send': () => ({ conversationId: 1, messageId: 99, queued: false }),
      'prices.forProject': () => ({ model: 'fake-model', provider: 'openai-compatible', priced }),
      'prices.set': () => {
        priced = true
        return { model: 'fake-model' }
      },
    })
    const cap = await screen.findByRole('textbox', { name: 'Cost cap in dollars' })
    // No cap, no warning: nothing to enforce.
    expect(screen.queryByRole('group', { name: 'Cost cap warning' })).toBeNull()
    await userEvent.type(cap, '0.01')
    const warning = await screen.findByRole('group', { name: 'Cost cap warning' })
    expect(warning).toHaveTextContent('The cost cap can’t be enforced: no price for fake-model.')

    // A token cap instead: sent with the task, and the warning says it holds.
    const tokens = within(warning).getByRole('textbox', { name: 'Token cap in tokens' })
    await userEvent.type(tokens, 'lots')
    expect(screen.getByRole('alert')).toHaveTextContent(
      'A token cap is a number of tokens, like 50000 or 50k',
    )
    await userEvent.clear(tokens)
    await userEvent.type(tokens, '50k')
    expect(warning).toHaveTextContent('The token cap of 50,000 tokens stops the task instead.')
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'greet{Control>}{Enter}{/Control}')
    await waitFor(() =>
      expect(sentInput(view, 'chat.send')).toEqual({
        projectId: 1,
        mode: 'task',
        text: 'greet',
        maxCostUsd: 0.01,
        maxTokens: 50_000,
      }),
    )

    // A price: a bad one is named, a good one is saved as the user's price and the warning goes.
    const input = within(warning).getByRole('textbox', { name: 'Input price in dollars per 1M tokens' })
    const output = within(warning).getByRole('textbox', { name: 'Output price in dollars per 1M tokens' })
    await userEvent.type(input, '1')
    await userEvent.click(within(warning).getByRole('button', { name: 'Save price' }))
    expect(within(warning).getByRole('alert')).toHaveTextContent('Enter both prices as dollars per 1M tokens')
    await userEvent.type(output, '$2')
    await userEvent.click(within(warning).getByRole('button', { name: 'Save price' }))
    await waitFor(() =>
      expect(sentInput(view, 'prices.set')).toEqual({ model: 'fake-model', input: 1, output: 2 }),
    )
    await waitFor(() => expect(screen.queryByRole('group', { name: 'Cost cap warning' })).toBeNull())
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
    // The spend so far against the cap.
    expect(within(article).getByTestId('cost-cap')).toHaveTextContent('Cost cap: $0.0123 of $0.10 spent')
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
      'Cost cap: $0.08 of $0.10 spent (75% reached); the task stops at the cap.',
    )
  })

  it('shows tokens against a token cap, and names a model with no price (issue 37)', () => {
    renderWithProviders(
      <TaskCard
        projectId={1}
        card={card({
          status: 'running',
          outcome: null,
          endedAt: null,
          caps: { usd: 0.01, tokens: 2_000 },
          cost: {
            usd: 0,
            inputTokens: 1500,
            outputTokens: 300,
            calls: 3,
            models: [{ provider: 'openai-compatible', model: 'fake-model', usd: 0, calls: 3 }],
          },
        })}
      />,
    )
    const article = screen.getByRole('article', { name: 'Task 1: Greeting' })
    expect(within(article).getByTestId('cost-cap')).toHaveTextContent(
      'Cost cap: $0.00 of $0.01 spentToken cap: 1,800 of 2,000 tokens used',
    )
    expect(within(article).getByTestId('task-unpriced')).toHaveTextContent(
      'No price for fake-model: its calls are not in this cost and the cost cap cannot count them. Give it one with ralph config set price fake-model INPUT OUTPUT (USD per 1M tokens)',
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
