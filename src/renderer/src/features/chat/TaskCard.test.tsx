import { act, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import type { TaskCardStatus } from '../../../../shared/api/chat'
import { renderWithProviders } from '../../test/render'
import { useRuns } from '../project/runStore'
import { TaskCard } from './TaskCard'
import { card } from './testData'

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
    renderWithProviders(<TaskCard projectId={1} card={card({ status })} />)
    const article = screen.getByRole('article', { name: 'Task 1: Greeting' })
    expect(article).toHaveTextContent(word)
    expect(article).toHaveTextContent('$0.0123')
  })

  it('shows what the loop did: tool calls, gates, duration, tokens and the summary', () => {
    renderWithProviders(<TaskCard projectId={1} card={card()} />)
    const article = screen.getByRole('article', { name: 'Task 1: Greeting' })
    const tools = within(article).getByRole('list', { name: 'Tool calls' })
    expect(
      within(tools)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['edit_fileindex.html', 'mark_complete'])
    expect(within(article).getByRole('list', { name: 'Gate results' })).toHaveTextContent(
      'changes-made: pass',
    )
    expect(article).toHaveTextContent('1m 05s')
    expect(article).toHaveTextContent('1.8k tokens')
    expect(article).toHaveTextContent('The heading now says Hello, world.')
  })

  it('says "price unknown" when the model answered but has no price, and asks its question when waiting', () => {
    renderWithProviders(
      <TaskCard
        projectId={1}
        card={card({
          status: 'waiting',
          outcome: 'Which page?',
          cost: { usd: 0, inputTokens: 10, outputTokens: 5, calls: 1 },
        })}
      />,
    )
    const article = screen.getByRole('article', { name: 'Task 1: Greeting' })
    expect(article).toHaveTextContent('price unknown')
    expect(article).toHaveTextContent('Ralph asks: Which page? Answer below to continue this task.')
  })

  it.each([
    ['Compare', 'Timeline'],
    ['Review plan changes', 'Plan editor'],
  ])('offers "%s" disabled, saying the %s will bring it', async (name, screenName) => {
    renderWithProviders(<TaskCard projectId={1} card={card()} />)
    const button = screen.getByRole('button', { name })
    expect(button).toHaveAttribute('aria-disabled', 'true')
    await userEvent.hover(button)
    expect((await screen.findByRole('tooltip')).textContent).toContain(screenName)
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
    renderWithProviders(
      <TaskCard projectId={1} card={card({ status: 'running', outcome: null, endedAt: null })} />,
    )
    expect(screen.queryByTestId('task-live')).toBeNull()
    act(() => {
      useRuns
        .getState()
        .onEvent(1, { type: 'iteration.started', task: 1, iteration: 1, phase: 'build', maxIterations: 5 })
      useRuns.getState().onDelta(1, 'Editing the heading')
    })
    expect(screen.getByTestId('task-live')).toHaveTextContent('Editing the heading')
    expect(screen.getByTestId('task-step')).toHaveTextContent('Iteration 1/5 · build')
  })

  it('before the loop numbers it, says it is starting', () => {
    renderWithProviders(
      <TaskCard projectId={1} card={card({ task: null, runId: null, title: null, status: 'starting' })} />,
    )
    expect(screen.getByRole('article', { name: 'Starting task…' })).toHaveTextContent('Starting')
    expect(screen.queryByRole('button', { name: 'Compare' })).toBeNull()
  })
})
