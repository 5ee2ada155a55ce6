import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import type { TaskCardStatus } from '../../../../shared/api/chat'
import { projectDetail } from '../../test/fixtures'
import { renderWithProviders } from '../../test/render'
import { usePlanUi } from '../plan'
import { useTimelineUi } from '../timeline'
import { useRuns } from '../../app/runStore'
import { useLiveTaskText } from './liveTaskText'
import { TaskCard } from './TaskCard'
import { card } from './testData'

/** A task card for `card(patch)` on project 1. */
const renderCard = (patch: Parameters<typeof card>[0] = {}) =>
  renderWithProviders(<TaskCard projectId={1} card={card(patch)} />)

describe('task card', () => {
  beforeEach(() => useRuns.setState({ runs: {} }))

  const words: [TaskCardStatus, string][] = [
    ['running', 'Running'],
    ['complete', 'Complete'],
    ['failed', 'Failed'],
    ['waiting', 'Waiting for your answer'],
    ['interrupted', 'Interrupted'],
    ['stopped', 'Stopped'],
  ]
  it.each(words)('is an article named after its task, holding the status word when %s', (status, word) => {
    renderCard({ status })
    const article = screen.getByRole('article', { name: 'Task 1: Greeting' })
    expect(article).toHaveTextContent(word)
    expect(article).toHaveTextContent('$0.0123')
  })

  it('shows what the loop did: tool calls, gates, duration, tokens and the summary', () => {
    renderCard()
    const article = screen.getByRole('article', { name: 'Task 1: Greeting' })
    const tools = within(article).getByRole('list', { name: 'Tool calls' })
    expect(
      within(tools)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['edit_fileindex.html', 'mark_complete'])
    expect(within(article).getByRole('list', { name: 'Gate results' })).toHaveTextContent(
      'Files changed: passed',
    )
    expect(article).toHaveTextContent('1m 05s')
    expect(article).toHaveTextContent('1.8k tokens')
    expect(article).toHaveTextContent('The heading now says Hello, world.')
    expect(article).not.toHaveTextContent('cached')
  })

  it('gives the spend per model when a fast model did the side jobs, and nothing more for one model', () => {
    const { unmount } = renderCard({
      cost: {
        usd: 0.0211,
        inputTokens: 9_000,
        outputTokens: 400,
        calls: 5,
        models: [
          { provider: 'openai', model: 'gpt-5-mini', usd: 0.0004, calls: 2 },
          { provider: 'openai', model: 'gpt-5', usd: 0.0207, calls: 3 },
        ],
      },
    })
    const article = screen.getByRole('article', { name: 'Task 1: Greeting' })
    expect(within(article).getByTestId('task-cost-models')).toHaveTextContent(
      'gpt-5-mini $0.0004 · gpt-5 $0.0207',
    )
    unmount()
    renderCard({
      cost: {
        usd: 0.0123,
        inputTokens: 1500,
        outputTokens: 300,
        calls: 3,
        models: [{ provider: 'openai', model: 'gpt-5', usd: 0.0123, calls: 3 }],
      },
    })
    expect(screen.queryByTestId('task-cost-models')).toBeNull()
  })

  it('says how much of the input the prompt cache served', () => {
    renderCard({
      cost: { usd: 0.0023, inputTokens: 10_000, outputTokens: 300, cacheReadTokens: 8_400, calls: 4 },
    })
    const article = screen.getByRole('article', { name: 'Task 1: Greeting' })
    expect(article).toHaveTextContent('$0.0023')
    expect(article).toHaveTextContent('10.3k tokens')
    expect(article).toHaveTextContent('cached 84%')
  })

  it('says "price unknown" when the model answered but has no price, and asks its question when waiting', () => {
    renderCard({
      status: 'waiting',
      outcome: 'Which page?',
      cost: { usd: 0, inputTokens: 10, outputTokens: 5, calls: 1 },
    })
    const article = screen.getByRole('article', { name: 'Task 1: Greeting' })
    expect(article).toHaveTextContent('price unknown')
    expect(article).toHaveTextContent('Ralph asks: Which page? Answer below to continue this task.')
  })

  it('offers the answers a waiting question names as quick replies: one click sends that answer to the task', async () => {
    const view = renderWithProviders(
      <TaskCard
        projectId={1}
        card={card({
          task: 2,
          status: 'waiting',
          outcome: 'Two new drinks, or two of the existing ones?',
          questions: [
            {
              text: 'Two new drinks, or two of the existing ones?',
              options: ['Two new drinks', 'Change two existing ones'],
            },
          ],
        })}
      />,
      {
        'tasks.running': () => ({ running: false }),
        'chat.send': () => ({ conversationId: 1, messageId: 9, queued: false }),
      },
    )
    const article = screen.getByRole('article', { name: 'Task 2: Greeting' })
    expect(article).toHaveTextContent(
      'Ralph asks: Two new drinks, or two of the existing ones? Answer below to continue this task.',
    )
    const replies = within(article).getByRole('group', { name: 'Quick replies' })
    await userEvent.click(within(replies).getByRole('button', { name: 'Two new drinks' }))
    await waitFor(() =>
      expect(view.calls.find((c) => c.name === 'chat.send')?.input).toEqual({
        projectId: 1,
        mode: 'task',
        text: 'Two new drinks',
        answering: 2,
      }),
    )
  })

  it('shows the user’s answer under the question it answered, on the finished card', () => {
    renderWithProviders(
      <TaskCard
        projectId={1}
        answers={['Two new drinks']}
        card={card({
          status: 'complete',
          outcome: 'Added two drinks.',
          questions: [{ text: 'Two new drinks, or two of the existing ones?', options: ['Two new drinks'] }],
        })}
      />,
    )
    const article = screen.getByRole('article', { name: 'Task 1: Greeting' })
    const qa = within(article).getByRole('list', { name: 'Questions and answers' })
    expect(qa).toHaveTextContent(
      'Ralph asked: Two new drinks, or two of the existing ones? You answered: Two new drinks',
    )
    // Answered: no quick replies any more, and the summary follows the exchange.
    expect(within(article).queryByRole('group', { name: 'Quick replies' })).toBeNull()
    expect(article).toHaveTextContent('Added two drinks.')
  })

  it('"Compare" opens the Timeline tab’s Compare view on the task’s pre → post', async () => {
    useTimelineUi.setState({ compare: null, file: 'stale.txt' })
    renderWithProviders(<TaskCard projectId={4} card={card({ task: 3 })} />)
    const button = screen.getByRole('button', { name: 'Compare' })
    expect(button).not.toHaveAttribute('aria-disabled')
    await userEvent.click(button)
    expect(useTimelineUi.getState()).toMatchObject({
      compare: { from: 'task-3-pre', to: 'task-3-post' },
      compareProject: 4,
      // Without a post-task snapshot the view compares with the working copy instead.
      toWorkingIfMissing: true,
      file: null,
    })
    expect(window.location.hash).toBe('#/project/4?panel=timeline')
  })

  it('offers "Review plan changes" disabled, saying why, when the project has no plan', async () => {
    renderWithProviders(<TaskCard projectId={1} card={card()} />, {
      'projects.get': () => projectDetail({ id: 1 }),
    })
    const button = screen.getByRole('button', { name: 'Review plan changes' })
    expect(button).toHaveAttribute('aria-disabled', 'true')
    await userEvent.hover(button)
    expect((await screen.findByRole('tooltip')).textContent).toContain('no plan')
  })

  it('"Review plan changes" opens the Plan tab’s diff on the task’s pre → post', async () => {
    usePlanUi.setState({ view: 'editor', range: null })
    renderWithProviders(<TaskCard projectId={4} card={card({ task: 3 })} />, {
      'projects.get': () => projectDetail({ id: 4, state: { ...projectDetail().state, hasPlan: true } }),
    })
    // Once the project says it has a plan, the button is enabled (a new element: the tooltip wrapper goes).
    await waitFor(() =>
      expect(screen.getByRole('button', { name: 'Review plan changes' })).not.toHaveAttribute(
        'aria-disabled',
      ),
    )
    await userEvent.click(screen.getByRole('button', { name: 'Review plan changes' }))
    expect(usePlanUi.getState()).toMatchObject({
      view: 'diff',
      range: { from: 'task-3-pre', to: 'task-3-post' },
    })
    expect(window.location.hash).toBe('#/project/4?panel=plan')
  })

  it('a rolled-back task says Rolled back, not Complete: dimmed, no Commit, Restore offered', () => {
    const { unmount } = renderCard({ status: 'complete', rolledBack: true })
    const article = screen.getByRole('article', { name: 'Task 1: Greeting' })
    expect(article).toHaveClass('task-card-rolled-back')
    expect(within(article).getByText('Rolled back', { exact: true })).toHaveClass('badge')
    expect(within(article).queryByText('Complete', { exact: true })).toBeNull()
    expect(within(article).getByRole('note')).toHaveTextContent('these changes are no longer on disk')
    expect(within(article).getByRole('button', { name: 'Restore' })).toBeInTheDocument()
    expect(within(article).queryByRole('button', { name: /Commit/ })).toBeNull()
    unmount()
    // The rollback undone: chat.history says it is on disk again, and the card is Complete once more.
    renderCard({ status: 'complete', rolledBack: false })
    const again = screen.getByRole('article', { name: 'Task 1: Greeting' })
    expect(within(again).getByText('Complete', { exact: true })).toHaveClass('badge')
    expect(again).not.toHaveClass('task-card-rolled-back')
  })

  it.each(['failed', 'stopped', 'interrupted'] as const)(
    'a %s task lists the files it left, still on disk, and how to undo them',
    async (status) => {
      const diffs: unknown[] = []
      renderWithProviders(<TaskCard projectId={1} card={card({ task: 3, status })} />, {
        // No later task started: what it left is what differs from its pre-task snapshot now.
        'snapshots.list': () => ({ items: [], total: 0 }),
        'snapshots.diff': (input) => {
          diffs.push(input)
          return {
            from: 'task-3-pre',
            to: null,
            entries: [
              { status: 'added', path: 'half.js' },
              { status: 'modified', path: '.ralph/progress.md' },
            ],
            counts: { added: 1, modified: 1, deleted: 0, renamed: 0 },
          }
        },
        'snapshots.diffStats': () => ({
          files: [{ path: 'half.js', additions: 4, deletions: 0, binary: false, tooLarge: false }],
        }),
      })
      const article = screen.getByRole('article', { name: 'Task 3: Greeting' })
      const files = await within(article).findByRole('list', { name: 'Files changed' }, { timeout: 3000 })
      expect(files).toHaveTextContent('half.js')
      expect(article).toHaveTextContent('Left on disk: 1 file (1 added)')
      expect(within(article).getByRole('note')).toHaveTextContent(
        'These changes are still in your folder. To undo them, use Roll back to before this task.',
      )
      expect(diffs).toEqual([{ projectId: 1, target: 'task-3-pre' }])
    },
  )

  it('a failed task followed by another lists only what it left before the next one started', async () => {
    const diffs: unknown[] = []
    renderWithProviders(<TaskCard projectId={1} card={card({ task: 3, status: 'failed' })} />, {
      'snapshots.list': () => ({ items: [{ tag: 'task-4-pre' }], total: 1 }),
      'snapshots.diff': (input) => {
        diffs.push(input)
        return { from: 'task-3-pre', to: 'task-4-pre', entries: [], counts: {} }
      },
    })
    const article = screen.getByRole('article', { name: 'Task 3: Greeting' })
    await within(article).findByText('It left none of your files changed.', undefined, { timeout: 3000 })
    expect(diffs).toEqual([{ projectId: 1, target: 'task-3-pre', against: 'task-4-pre' }])
  })

  it('says a spend too small for four decimals as "under $0.01", and a local model as free', () => {
    const { unmount } = renderCard({ cost: { usd: 0.00002, inputTokens: 10, outputTokens: 1, calls: 1 } })
    expect(screen.getByTestId('task-cost')).toHaveTextContent('under $0.01')
    unmount()
    renderCard({
      cost: {
        usd: 0,
        inputTokens: 10,
        outputTokens: 1,
        calls: 1,
        models: [{ provider: 'ollama', model: 'qwen3', usd: 0, calls: 1 }],
      },
    })
    expect(screen.getByTestId('task-cost')).toHaveTextContent('free (local model)')
  })

  it('"Roll back to before this task" opens the rollback preview for task-N-pre', async () => {
    const { calls } = renderWithProviders(<TaskCard projectId={1} card={card({ task: 3 })} />, {
      'snapshots.previewRollback': () => ({
        preview: true,
        target: 'task-3-pre',
        targetCommit: 'a'.repeat(40),
        safetyTag: null,
        written: [{ path: 'index.html', change: 'modified' }],
        deleted: [],
        leftAlone: [],
        skipped: [],
        neverSnapshotted: [],
        durationMs: 1,
      }),
    })
    const button = screen.getByRole('button', { name: 'Roll back to before this task' })
    expect(button).not.toHaveAttribute('aria-disabled')
    await userEvent.click(button)
    const dialog = await screen.findByRole('alertdialog', { name: 'Roll back to task-3-pre' })
    expect(await within(dialog).findByRole('list', { name: 'Overwritten' })).toHaveTextContent('index.html')
    expect(calls.find((c) => c.name === 'snapshots.previewRollback')?.input).toEqual({
      projectId: 1,
      tag: 'task-3-pre',
    })
  })

  it('streams the running task’s text into its own line', () => {
    renderCard({ status: 'running', outcome: null, endedAt: null })
    expect(screen.queryByTestId('task-live')).toBeNull()
    act(() => {
      useRuns
        .getState()
        .onEvent(1, { type: 'iteration.started', task: 1, iteration: 1, phase: 'build', maxIterations: 5 })
      useLiveTaskText.setState({ byProject: { 1: { task: 1, text: 'Editing the heading' } } })
    })
    expect(screen.getByTestId('task-live')).toHaveTextContent('Editing the heading')
    expect(screen.getByTestId('task-step')).toHaveTextContent('Iteration 1/5 · build')
  })

  it('after a reload mid-task (no event heard yet) says where it is from its run’s rows, counting the iteration under way', () => {
    renderWithProviders(
      <TaskCard
        projectId={1}
        card={card({
          status: 'running',
          type: 'fresh',
          outcome: null,
          endedAt: null,
          iterations: 2,
          lastIteration: { number: 3, phase: 'build' },
          toolCalls: [],
          toolCallCount: 0,
        })}
      />,
      { 'chat.taskDetail': () => ({ runId: 1, iterations: [], earlier: 0 }) },
    )
    expect(screen.getByTestId('task-step')).toHaveTextContent('Iteration 3 · build')
    expect(screen.getByRole('button', { name: /^3 iterations · 0 tool calls/ })).toBeInTheDocument()
    expect(screen.getByText('Build').closest('li')).toHaveAttribute('aria-current', 'step')
  })

  it('says when it waits for the usage limit, until when, and goes back to work when it resumes', () => {
    renderCard({ status: 'running', outcome: null, endedAt: null })
    const resetAt = new Date(Date.now() + 2 * 3600_000)
    act(() =>
      useRuns.getState().onEvent(1, {
        type: 'limit.waiting',
        task: 1,
        resetAt: resetAt.toISOString(),
        waitMs: 2 * 3600_000,
        message: 'Usage limit reached.',
      }),
    )
    const wait = screen.getByTestId('limit-wait')
    expect(wait).toHaveTextContent('Waiting for the usage limit: resumes at')
    expect(wait).toHaveTextContent(resetAt.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }))
    expect(wait).toHaveTextContent(/\(in 1[12]\dm \d\ds\)/)
    act(() => useRuns.getState().onEvent(1, { type: 'limit.resumed', task: 1, waitedMs: 1000 }))
    expect(screen.queryByTestId('limit-wait')).toBeNull()
  })

  it('says when a checkpoint ended an iteration on a full context', () => {
    renderCard({ status: 'running', outcome: null, endedAt: null })
    act(() =>
      useRuns.getState().onEvent(1, {
        type: 'checkpoint.written',
        task: 1,
        reason: 'budget',
        by: 'model',
        usedTokens: 13_200,
        windowTokens: 16_384,
        text: 'Done: hero. Next: footer.',
      }),
    )
    expect(screen.getByTestId('task-step')).toHaveTextContent(
      'Context 81% full: checkpoint written; the next iteration continues from it',
    )
  })

  it('before the loop numbers it, says it is starting', () => {
    renderCard({ task: null, runId: null, title: null, status: 'starting' })
    expect(screen.getByRole('article', { name: 'Starting task…' })).toHaveTextContent('Starting')
    expect(screen.queryByRole('button', { name: 'Compare' })).toBeNull()
  })

  describe('"Resume" on an interrupted task', () => {
    const interrupted = (taskCount: number) => ({
      'projects.get': () =>
        projectDetail({ id: 2, state: { ...projectDetail().state, status: 'interrupted', taskCount } }),
      'tasks.running': () => ({ running: false }),
    })

    it('shows only when the task was interrupted', () => {
      for (const status of ['running', 'complete', 'failed', 'waiting', 'stopped'] as const) {
        const view = renderWithProviders(<TaskCard projectId={2} card={card({ status })} />)
        expect(screen.queryByRole('button', { name: 'Resume' }), status).toBeNull()
        view.unmount()
      }
      renderWithProviders(<TaskCard projectId={2} card={card({ status: 'interrupted' })} />, interrupted(1))
      const article = screen.getByRole('article', { name: 'Task 1: Greeting' })
      expect(within(article).getByRole('button', { name: 'Resume' })).toBeInTheDocument()
      expect(
        within(article).getByRole('button', { name: 'Roll back to before this task' }),
      ).toBeInTheDocument()
    })

    it('resumes the card’s run, and Stop shows at once', async () => {
      const { calls } = renderWithProviders(
        <TaskCard projectId={2} card={card({ task: 3, runId: 7, status: 'interrupted' })} />,
        { ...interrupted(3), 'chat.resume': () => ({ task: 3 }) },
      )
      await waitFor(() =>
        expect(screen.getByRole('button', { name: 'Resume' })).not.toHaveAttribute('aria-disabled'),
      )
      await userEvent.click(screen.getByRole('button', { name: 'Resume' }))
      await waitFor(() =>
        expect(calls.find((c) => c.name === 'chat.resume')?.input).toEqual({ projectId: 2, runId: 7 }),
      )
      expect(useRuns.getState().runs[2]?.running).toBe(true)
    })

    it('is disabled, saying why, while another task runs', async () => {
      const { calls } = renderWithProviders(
        <TaskCard projectId={2} card={card({ task: 3, status: 'interrupted' })} />,
        { ...interrupted(3), 'tasks.running': () => ({ running: true }), 'chat.resume': () => ({ task: 3 }) },
      )
      await waitFor(() =>
        expect(screen.getByRole('button', { name: 'Resume' })).toHaveAttribute('aria-disabled', 'true'),
      )
      const button = screen.getByRole('button', { name: 'Resume' })
      await userEvent.click(button)
      await userEvent.hover(button)
      expect((await screen.findByRole('tooltip')).textContent).toContain('Another task is running')
      expect(calls.some((c) => c.name === 'chat.resume')).toBe(false)
    })

    it('is disabled, saying why, once a later task has started', async () => {
      renderWithProviders(
        <TaskCard projectId={2} card={card({ task: 3, status: 'interrupted' })} />,
        interrupted(4),
      )
      await waitFor(() =>
        expect(screen.getByRole('button', { name: 'Resume' })).toHaveAttribute('aria-disabled', 'true'),
      )
      await userEvent.hover(screen.getByRole('button', { name: 'Resume' }))
      expect((await screen.findByRole('tooltip')).textContent).toContain('Task 4 started after this one')
    })

    it('shows the core’s refusal', async () => {
      renderWithProviders(<TaskCard projectId={2} card={card({ task: 3, status: 'interrupted' })} />, {
        ...interrupted(3),
        'chat.resume': () => {
          throw new Error("Nothing to resume: the project's last task (task 3) was not interrupted")
        },
      })
      await waitFor(() =>
        expect(screen.getByRole('button', { name: 'Resume' })).not.toHaveAttribute('aria-disabled'),
      )
      await userEvent.click(screen.getByRole('button', { name: 'Resume' }))
      expect(await screen.findByRole('alert')).toHaveTextContent('Nothing to resume')
      expect(useRuns.getState().runs[2]?.running).toBe(false)
    })
  })
})
