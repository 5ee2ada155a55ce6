import { act, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { beforeEach, describe, expect, it } from 'vitest'
import { loopEventSchema } from '../../../../shared/loopEvents'
import { projectDetail } from '../../test/fixtures'
import { renderWithProviders } from '../../test/render'
import { subscribeRunEvents, useRuns } from '../../app/runStore'
import { useTimelineUi } from '../timeline'
import { useChatUi } from './chatUi'
import { flushLiveTaskText, subscribeLiveTaskText, useLiveTaskText } from './liveTaskText'
import { recordedRuns, type RecordedRun } from './recordedRuns'
import { TaskCard } from './TaskCard'

/** Renders the card as `chat.history` gives it, and replays the run's events into the live stores. */
function replay(run: RecordedRun, extra: Record<string, (input: unknown) => unknown> = {}) {
  const view = renderWithProviders(<TaskCard projectId={1} card={run.card} />, {
    'chat.taskDetail': () => ({ runId: run.card.runId, iterations: run.detail, earlier: 0 }),
    'projects.get': () => projectDetail({ id: 1 }),
    'tasks.running': () => ({ running: run.card.status === 'running' }),
    'snapshots.diff': () => ({
      from: 'task-4-pre',
      to: 'task-4-post',
      entries: [
        { status: 'added', path: 'night.html' },
        { status: 'modified', path: 'menu.html' },
        { status: 'deleted', path: 'old.css' },
        { status: 'modified', path: '.ralph/progress.md' },
      ],
      counts: { added: 1, modified: 2, deleted: 1, renamed: 0 },
    }),
    'snapshots.diffStats': () => ({
      files: [
        { path: 'night.html', additions: 12, deletions: 0, binary: false, tooLarge: false },
        { path: 'menu.html', additions: 2, deletions: 1, binary: false, tooLarge: false },
        { path: 'old.css', additions: 0, deletions: 30, binary: false, tooLarge: false },
      ],
    }),
    ...extra,
  })
  const offs = [subscribeRunEvents(view.client), subscribeLiveTaskText(view.client)]
  act(() => {
    for (const e of run.events) {
      if (e.name === 'loop.event') loopEventSchema.parse(e.payload.event)
      view.emit(e.name, e.payload as never)
    }
    flushLiveTaskText()
  })
  offs.forEach((off) => off())
  return { ...view, article: screen.getByRole('article', { name: /^Task 4: Night drinks/ }) }
}

describe('task card replaying recorded runs', () => {
  beforeEach(() => {
    useRuns.setState({ runs: {} })
    useLiveTaskText.setState({ byProject: {} })
    useChatUi.setState({ open: {} })
  })

  it('running: the live step, the model’s text (finished paragraphs as markdown), iterations open', async () => {
    const { article } = replay(recordedRuns.running)
    expect(article).toHaveTextContent('Running')
    expect(within(article).getByTestId('task-step')).toHaveTextContent('Iteration 2/20 · build')
    // The text since the last tool call, as it streams.
    expect(within(article).getByTestId('task-live')).toHaveTextContent('Adding the two drinks to the menu.')
    expect(within(article).getByRole('list', { name: 'Phases' })).toHaveTextContent('Build')
    // A running task's iterations are open by themselves, the newest one too.
    const iterations = within(article).getByRole('region', { name: 'Iterations' })
    expect(within(iterations).getByRole('button', { name: /^2 iterations · 1 tool call/ })).toHaveAttribute(
      'aria-expanded',
      'true',
    )
    const second = await within(iterations).findByRole('button', { name: /^Iteration 2/ })
    expect(second).toHaveAttribute('aria-expanded', 'true')
    expect(second).toHaveTextContent('build · 0 tool calls · running')
    // The text being written streams at the end of the iteration it belongs to.
    expect(within(second.closest('li')!).getByTestId('task-live')).toHaveTextContent(
      'Adding the two drinks to the menu.',
    )
    expect(within(iterations).getByRole('button', { name: /^Iteration 1/ })).toHaveAttribute(
      'aria-expanded',
      'false',
    )
    expect(within(article).queryByRole('list', { name: 'Files changed' })).toBeNull()
  })

  it('streams a burst of deltas as one render per frame, and starts again after a tool call', () => {
    const { client, emit } = renderWithProviders(
      <TaskCard projectId={1} card={recordedRuns.running.card} />,
      {
        'chat.taskDetail': () => ({ runId: 9, iterations: [], earlier: 0 }),
        'projects.get': () => projectDetail({ id: 1 }),
      },
    )
    const off = subscribeLiveTaskText(client)
    let renders = 0
    const unsubscribe = useLiveTaskText.subscribe(() => renders++)
    act(() => {
      for (let i = 0; i < 200; i++) emit('loop.delta', { projectId: 1, task: 4, iteration: 2, text: `${i} ` })
      flushLiveTaskText()
    })
    expect(renders).toBe(1)
    expect(screen.getByTestId('task-live').textContent).toMatch(/^0 1 2 .* 199 $/)
    act(() => {
      emit('loop.event', {
        projectId: 1,
        event: {
          type: 'tool.called',
          task: 4,
          iteration: 2,
          name: 'edit_file',
          args: {},
          ok: true,
          summary: 'ok',
          durationMs: 1,
        },
      })
      emit('loop.delta', { projectId: 1, task: 4, iteration: 2, text: 'Next.' })
      flushLiveTaskText()
    })
    expect(screen.getByTestId('task-live')).toHaveTextContent(/^Next\.$/)
    unsubscribe()
    off()
  })

  it('complete: the latest gates as chips with their messages, the summary as markdown, the files changed', async () => {
    const { article } = replay(recordedRuns.complete)
    expect(article).toHaveTextContent('Complete')
    expect(within(article).queryByTestId('task-live')).toBeNull()
    const chips = within(article).getByRole('list', { name: 'Gate results' })
    expect(
      within(chips)
        .getAllByRole('listitem')
        .map((li) => [li.className, li.textContent]),
    ).toEqual([
      ['gate gate-pass', 'Only files in scope: passed only menu.html changed'],
      ['gate gate-warning', 'Sensible file sizes: warning menu.html grew by 40%'],
    ])
    expect(within(article).getByText('two', { selector: 'strong' })).toBeInTheDocument()
    const files = await within(article).findByRole('list', { name: 'Files changed' })
    await within(files).findByText('+12')
    expect(
      within(files)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['+night.html+12 −0', '~menu.html+2 −1', '−old.css+0 −30'])
    // Ralph's own files in .ralph/ are counted, not listed.
    expect(article).toHaveTextContent('3 files changed (1 added, 1 modified, 1 deleted)')
    // Gate names are explained on hover.
    expect(within(chips).getByText('Sensible file sizes: warning')).toHaveAttribute(
      'title',
      expect.stringMatching(/^Checks that/),
    )
    // A changed file opens the task's Compare on that file.
    await userEvent.click(within(files).getByRole('button', { name: 'Open the diff of menu.html' }))
    expect(useTimelineUi.getState()).toMatchObject({ compareProject: 1, file: 'menu.html' })
    expect(useTimelineUi.getState().compare).not.toBeNull()
    // Closed by default once finished: the compact lines only.
    expect(within(article).getByRole('list', { name: 'Tool calls' })).toHaveTextContent('edit_file')
    expect(within(article).getByRole('button', { name: /^2 iterations/ })).toHaveAttribute(
      'aria-expanded',
      'false',
    )
  })

  it('complete, opened: each iteration with its text, tool calls, phase change and every gate attempt', async () => {
    const { article } = replay(recordedRuns.complete)
    const toggle = within(article).getByRole('button', { name: /^2 iterations · 3 tool calls/ })
    expect(toggle).toHaveAttribute('aria-expanded', 'false')
    await userEvent.click(toggle)
    const iterations = within(article).getByRole('region', { name: 'Iterations' })
    const second = await within(iterations).findByRole('button', { name: /^Iteration 2/ })
    expect(second).toHaveTextContent('Iteration 2build · 2 tool calls · 30s · complete')
    // The failing scope gate, then its pass, exactly as the gates said them.
    const gates = within(iterations).getByRole('list', { name: 'Gate results' })
    expect(gates).toHaveTextContent(
      'Only files in scope: failed style.css changed but is outside the task scope (menu.html)Only files in scope: passed only menu.html changed',
    )
    // A tool call is one line until opened: then its arguments and its answer, long ones said to be cut.
    const mark = within(iterations).getByRole('button', { name: /mark_complete/ })
    expect(mark).toHaveTextContent('mark_complete1 ms')
    await userEvent.click(mark)
    expect(within(iterations).getByText('… 120 more characters not shown.')).toBeInTheDocument()
    expect(within(iterations).getByText('Marked complete')).toBeInTheDocument()
    const edit = within(iterations).getByRole('button', { name: /edit_file/ })
    // An edit says its size on its line, and opens as a diff, not as escaped JSON.
    expect(edit).toHaveTextContent('edit_file+1 −1menu.html12 ms')
    await userEvent.click(edit)
    expect(within(iterations).getByText('Edited menu.html (1 replacement)')).toBeInTheDocument()
    const diff = within(iterations).getByRole('group', { name: 'Changes to menu.html' })
    expect([...diff.querySelectorAll('.diff-line')].map((l) => l.textContent)).toEqual([
      '−</ul>',
      '+<li>Moonlit Calm</li></ul>',
    ])
    expect(diff.querySelector('.diff-add .tok-tag')).toHaveTextContent('<li')
    expect(diff).not.toHaveTextContent('\\n')
    // Another tool's arguments read field by field, its text with real line breaks.
    expect(within(iterations).getByText('summary', { selector: 'dt' })).toBeInTheDocument()
    // The first iteration: its text as markdown, its tool call, and the phase change.
    await userEvent.click(within(iterations).getByRole('button', { name: /^Iteration 1/ }))
    expect(within(iterations).getByRole('heading', { name: 'Plan' })).toBeInTheDocument()
    expect(within(iterations).getByText('Moonlit Calm', { selector: 'strong' })).toBeInTheDocument()
    expect(within(iterations).getByText('Phase change:').parentElement).toHaveTextContent(
      'Phase change: Phase plan → build: the plan is written',
    )
    await userEvent.click(within(iterations).getByRole('button', { name: /read_file/ }))
    expect(
      within(iterations).getByText('Shortened: the tool answered 2,400 bytes; this is its start.'),
    ).toBeInTheDocument()
  })

  it('failed: the failing tool call marked as an error, and the stall notice', async () => {
    const { article } = replay(recordedRuns.failed)
    expect(article).toHaveTextContent('Failed')
    expect(article).toHaveTextContent('Ralph kept repeating the same failing edit.')
    expect(within(article).getByRole('list', { name: 'Tool calls' })).toHaveTextContent('edit_file')
    expect(within(article).getByLabelText('error')).toBeInTheDocument()
    expect(within(article).queryByRole('list', { name: 'Files changed' })).toBeNull()
    await userEvent.click(within(article).getByRole('button', { name: /^2 iterations/ }))
    const iterations = within(article).getByRole('region', { name: 'Iterations' })
    const second = await within(iterations).findByRole('button', { name: /^Iteration 2/ })
    expect(within(second).getByLabelText('a tool call failed')).toBeInTheDocument()
    expect(within(iterations).getByText('Stall:').parentElement).toHaveTextContent(
      'Stall: The same failing edit three times: rolled back to the iteration start.',
    )
    await userEvent.click(within(iterations).getByRole('button', { name: /edit_file/ }))
    expect(within(iterations).getByText('Error')).toBeInTheDocument()
    expect(within(iterations).getByText('old_string not found in menu.html')).toBeInTheDocument()
  })

  it('waiting: the question, and no iterations to open', () => {
    const { article } = replay(recordedRuns.waiting)
    expect(article).toHaveTextContent('Waiting for your answer')
    expect(article).toHaveTextContent(
      'Ralph asks: Two new drinks, or two of the existing ones? Answer below to continue this task.',
    )
    expect(within(article).queryByRole('region', { name: 'Iterations' })).toBeNull()
    expect(within(article).queryByTestId('task-live')).toBeNull()
  })

  it('stopped: the status, its iterations kept, nothing live', async () => {
    const { article } = replay(recordedRuns.stopped)
    expect(article).toHaveTextContent('Stopped')
    expect(within(article).queryByTestId('task-live')).toBeNull()
    await userEvent.click(within(article).getByRole('button', { name: /^2 iterations/ }))
    const second = await within(article).findByRole('button', { name: /^Iteration 2/ })
    expect(second).toHaveTextContent('stopped')
  })

  it('interrupted: Resume and Roll back, and the iteration that was cut short', async () => {
    const { article } = replay(recordedRuns.interrupted, {
      'projects.get': () =>
        projectDetail({ id: 1, state: { ...projectDetail().state, status: 'interrupted', taskCount: 4 } }),
      'tasks.running': () => ({ running: false }),
    })
    expect(article).toHaveTextContent('Interrupted')
    expect(within(article).getByRole('button', { name: 'Resume' })).toBeInTheDocument()
    expect(within(article).getByRole('button', { name: 'Roll back to before this task' })).toBeInTheDocument()
    await userEvent.click(within(article).getByRole('button', { name: /^2 iterations/ }))
    const second = await within(article).findByRole('button', { name: /^Iteration 2/ })
    expect(second).toHaveTextContent('Iteration 2build · 0 tool calls')
    expect(second).not.toHaveTextContent('running')
  })

  it('interrupted in its first iteration: the iteration shows by its tool calls, and the stepper at Build', () => {
    const run = recordedRuns.interrupted
    const { article } = replay({
      ...run,
      card: { ...run.card, iterations: 0, toolCalls: run.card.toolCalls.slice(0, 1), toolCallCount: 1 },
    })
    expect(within(article).getByRole('button', { name: /^1 iteration · 1 tool call/ })).toBeInTheDocument()
    expect(within(article).getByText('Build')).toHaveClass('phase-stopped')
    expect(within(article).getByText('1 iteration', { selector: '.task-card-meta span' })).toBeInTheDocument()
  })

  it('keeps what the reader opened when the card is rendered again (scrolled away and back)', async () => {
    const first = replay(recordedRuns.complete)
    await userEvent.click(within(first.article).getByRole('button', { name: /^2 iterations/ }))
    await within(first.article).findByRole('button', { name: /^Iteration 2/ })
    first.unmount()
    const again = replay(recordedRuns.complete)
    expect(await within(again.article).findByRole('button', { name: /^Iteration 2/ })).toHaveAttribute(
      'aria-expanded',
      'true',
    )
  })
})
