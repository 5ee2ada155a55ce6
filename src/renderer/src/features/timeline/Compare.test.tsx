import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { VirtuosoMockContext } from 'react-virtuoso'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { SnapshotMetaDto } from '../../../../shared/api/snapshots'
import type { DiffViewProps } from '../../ui/monaco'
import { renderWithProviders } from '../../test/render'
import { history, snap, snapshotStatus } from './testData'
import { Timeline } from './Timeline'
import { useProjectUi } from '../../app/projectUi'
import { routeHash } from '../../app/routes'
import { openTaskFileDiff } from './openTaskFileDiff'
import { FULL_LAYOUT_KEY, useTimelineUi } from './timelineUi'

// happy-dom cannot run Monaco (no layout, no workers): the diff editor is a stand-in that shows what it was given.
// Monaco's own rendering of the diff is proven in Chromium by tests/e2e/timeline.test.ts.
vi.mock('../../ui/monaco', () => ({
  DiffView: (props: DiffViewProps) => (
    <div data-testid="diff-view" data-language={props.language} data-side-by-side={String(props.sideBySide)}>
      <pre data-testid="original">{props.original}</pre>
      <pre data-testid="modified">{props.modified}</pre>
    </div>
  ),
}))

type Input = { target: string; against?: string; path?: string; oldPath?: string; files?: { path: string }[] }

const side = (content: string | null, patch: Record<string, unknown> = {}) => ({
  exists: content !== null,
  size: content?.length ?? 0,
  binary: false,
  tooLarge: false,
  content,
  ...patch,
})

const entries = [
  { status: 'modified', path: 'index.html' },
  { status: 'added', path: 'hours.html' },
  { status: 'deleted', path: 'old.css' },
  { status: 'renamed', path: 'src/new.js', oldPath: 'src/old.js', similarity: 90 },
  { status: 'modified', path: 'logo.png' },
  { status: 'modified', path: 'big.log' },
]

const handlers = {
  'snapshots.list': (input: unknown) => {
    const { offset = 0, limit = 100 } = input as { offset?: number; limit?: number }
    return { items: history.slice(offset, offset + limit), total: history.length }
  },
  'snapshots.status': () => snapshotStatus({ changes: { added: 0, modified: 1, deleted: 0 } }),
  'snapshots.diff': (input: unknown) => {
    const { target, against } = input as Input
    return {
      from: target,
      to: against ?? null,
      entries,
      counts: { added: 1, modified: 3, deleted: 1, renamed: 1 },
    }
  },
  'snapshots.diffStats': (input: unknown) => ({
    files: (input as Input).files!.map((f) =>
      f.path === 'logo.png'
        ? { path: f.path, additions: null, deletions: null, binary: true, tooLarge: false }
        : f.path === 'big.log'
          ? { path: f.path, additions: null, deletions: null, binary: false, tooLarge: true }
          : { path: f.path, additions: 3, deletions: 1, binary: false, tooLarge: false },
    ),
  }),
  'snapshots.fileDiff': (input: unknown) => {
    const { target, against, path } = input as Input
    const base = { path: path!, from: target, to: against ?? null }
    if (path === 'logo.png')
      return {
        ...base,
        old: side(null, { exists: true, binary: true, size: 2048 }),
        new: side(null, { exists: true, binary: true, size: 4096 }),
      }
    if (path === 'big.log')
      return {
        ...base,
        old: side(null, { exists: true, tooLarge: true, size: 9e6 }),
        new: side(null, { exists: true, tooLarge: true, size: 9.5e6 }),
      }
    return { ...base, old: side(`old ${path}\n`), new: side(`new ${path}\n`) }
  },
}

function renderTimeline(extra: Record<string, (input: unknown) => unknown> = {}) {
  return renderWithProviders(
    <VirtuosoMockContext.Provider value={{ viewportHeight: 20_000, itemHeight: 60 }}>
      <Timeline projectId={1} />
    </VirtuosoMockContext.Provider>,
    { ...handlers, ...extra },
  )
}

const compareOn = async (tag: string) => {
  const item = await screen.findByRole('listitem', { name: new RegExp(`^${tag},`) })
  await userEvent.click(within(item).getByRole('button', { name: 'Compare' }))
}
const fileItems = async () =>
  within(await screen.findByRole('list', { name: 'Changed files' })).getAllByRole('listitem')
/** The range the pickers show: From, then To. */
const expectRange = (from: string, to: string) => {
  expect(screen.getByRole('combobox', { name: 'From' })).toHaveValue(from)
  expect(screen.getByRole('combobox', { name: 'To' })).toHaveValue(to)
}
const lastCall = (calls: { name: string; input: unknown }[], name: string) =>
  [...calls].reverse().find((c) => c.name === name)?.input as Input | undefined

describe('timeline compare', () => {
  beforeEach(() =>
    useTimelineUi.setState({
      filter: 'everything',
      compare: null,
      compareProject: null,
      file: null,
      toWorkingIfMissing: false,
      fullSize: false,
      layout: 'inline',
      fullLayout: 'side-by-side',
    }),
  )

  it('lists the user’s files first and counts them alone; Ralph’s own files are a collapsed group after them', async () => {
    renderTimeline({
      'snapshots.diff': (input: unknown) => ({
        from: (input as Input).target,
        to: (input as Input).against ?? null,
        entries: [
          { status: 'modified', path: '.ralph/task.md' },
          { status: 'added', path: '.ralph/summary.md' },
          { status: 'added', path: 'app.js' },
          { status: 'modified', path: 'style.css' },
        ],
        counts: { added: 2, modified: 2, deleted: 0, renamed: 0 },
      }),
    })
    await compareOn('task-2-post')
    await waitFor(async () =>
      expect((await fileItems()).map((li) => li.getAttribute('aria-label')?.split(',')[0])).toEqual([
        'app.js',
        'style.css',
      ]),
    )
    expect(screen.getByTestId('compare-summary')).toHaveTextContent('2 files changed: 1 added, 1 modified')
    const own = screen.getByTestId('ralph-own-files')
    expect(own).not.toHaveAttribute('open')
    expect(own.querySelector('summary')).toHaveTextContent('Ralph’s own files (2)')
    const ralph = within(own).getByRole('list', { name: 'Ralph’s own files', hidden: true })
    expect(within(ralph).getAllByRole('listitem', { hidden: true })).toHaveLength(2)
    // Choosing one of them opens the group.
    useTimelineUi.getState().setFile('.ralph/task.md')
    await waitFor(() => expect(own).toHaveAttribute('open'))
  })

  it('opens full size in a large dialog, side by side by default and remembered; Esc returns to the panel', async () => {
    renderTimeline()
    await compareOn('task-2-post')
    await userEvent.click((await fileItems())[0]!.querySelector('button')!)
    expect(await screen.findByTestId('diff-view')).toHaveAttribute('data-side-by-side', 'false')
    await userEvent.click(screen.getByRole('button', { name: 'Open full size' }))
    const full = await screen.findByRole('dialog', { name: 'Compare task-2-pre → task-2-post' })
    // One diff editor: the panel's gives way to the dialog's.
    expect(screen.getAllByTestId('diff-view')).toHaveLength(1)
    expect(within(full).getByTestId('diff-view')).toHaveAttribute('data-side-by-side', 'true')
    await userEvent.click(within(full).getByRole('radio', { name: 'Inline' }))
    expect(within(full).getByTestId('diff-view')).toHaveAttribute('data-side-by-side', 'false')
    expect(localStorage.getItem(FULL_LAYOUT_KEY)).toBe('inline')
    await userEvent.keyboard('{Escape}')
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(await screen.findByTestId('diff-view')).toHaveAttribute('data-side-by-side', 'false')
    expectRange('task-2-pre', 'task-2-post')
  })

  it('openTaskFileDiff opens a task’s file full size on the Timeline tab', async () => {
    renderTimeline()
    useProjectUi.getState().setSidePanelCollapsed(true)
    openTaskFileDiff(1, 2, 'hours.html')
    // The side panel folded away opens: the Timeline holds the dialog.
    expect(useProjectUi.getState().sidePanelCollapsed).toBe(false)
    expect(window.location.hash).toBe(routeHash({ page: 'project', projectId: 1, panel: 'timeline' }))
    const full = await screen.findByRole('dialog', { name: 'Compare task-2-pre → task-2-post' })
    expect(await within(full).findByTestId('modified')).toHaveTextContent('new hours.html')
    expect(useTimelineUi.getState()).toMatchObject({ file: 'hours.html', fullSize: true, compareProject: 1 })
  })

  it('compares a task’s post-task snapshot with its pre-task one and lists the changed files with status and counts', async () => {
    const { calls } = renderTimeline()
    await compareOn('task-2-post')
    expectRange('task-2-pre', 'task-2-post')
    await waitFor(async () =>
      expect((await fileItems()).map((li) => li.getAttribute('aria-label'))).toEqual([
        'index.html, modified, 3 lines added, 1 deleted',
        'hours.html, added, 3 lines added, 1 deleted',
        'old.css, deleted, 3 lines added, 1 deleted',
        'src/new.js, renamed, from src/old.js, 3 lines added, 1 deleted',
        'logo.png, modified, binary file',
        'big.log, modified, too large to compare',
      ]),
    )
    expect(lastCall(calls, 'snapshots.diff')).toMatchObject({ target: 'task-2-pre', against: 'task-2-post' })
    expect(screen.getByTestId('compare-summary')).toHaveTextContent(
      '6 files changed: 1 added, 3 modified, 1 deleted, 1 renamed',
    )
    expect((await fileItems())[0]).toHaveTextContent('+3 −1')
    // The rename's old side is read where the file was.
    expect(lastCall(calls, 'snapshots.diffStats')!.files).toContainEqual({
      path: 'src/new.js',
      oldPath: 'src/old.js',
    })
  })

  it('any other entry compares with the snapshot before it; choosing a file shows its diff, binary and large files say so', async () => {
    const { calls } = renderTimeline()
    await compareOn('manual-1700000200')
    expectRange('task-1-post', 'manual-1700000200')
    expect(screen.queryByTestId('diff-view')).toBeNull()

    await userEvent.click(within((await fileItems())[0]!).getByRole('button'))
    const diff = await screen.findByTestId('diff-view')
    expect(within(diff).getByTestId('original')).toHaveTextContent('old index.html')
    expect(within(diff).getByTestId('modified')).toHaveTextContent('new index.html')
    expect(diff).toHaveAttribute('data-language', 'html')
    expect(lastCall(calls, 'snapshots.fileDiff')).toMatchObject({
      target: 'task-1-post',
      against: 'manual-1700000200',
      path: 'index.html',
    })

    await userEvent.click(within((await fileItems())[4]!).getByRole('button'))
    expect(await screen.findByRole('note')).toHaveTextContent(
      'Binary file: no text diff. 2.0 KB before, 4.0 KB after.',
    )
    await userEvent.click(within((await fileItems())[5]!).getByRole('button'))
    await waitFor(() =>
      expect(screen.getByRole('note')).toHaveTextContent('Too large to show here. 8.6 MB before'),
    )

    await userEvent.click(screen.getByRole('radio', { name: 'Side by side' }))
    await userEvent.click(within((await fileItems())[3]!).getByRole('button'))
    expect(await screen.findByTestId('diff-view')).toHaveAttribute('data-side-by-side', 'true')
    expect(lastCall(calls, 'snapshots.fileDiff')).toMatchObject({ path: 'src/new.js', oldPath: 'src/old.js' })
  })

  it('the oldest snapshot compares with the working copy; Back returns to the list', async () => {
    const { calls } = renderTimeline()
    await compareOn('baseline-1700000000')
    expect(screen.getByRole('combobox', { name: 'To' })).toHaveValue('working')
    await fileItems()
    const diff = lastCall(calls, 'snapshots.diff')!
    expect(diff.target).toBe('baseline-1700000000')
    expect(diff).not.toHaveProperty('against')
    await userEvent.click(screen.getByRole('button', { name: 'Back to the timeline' }))
    expect(await screen.findByRole('list', { name: 'Snapshots' })).toBeInTheDocument()
    expect(screen.queryByRole('list', { name: 'Changed files' })).toBeNull()
  })

  it('From the working copy asks the core the other way round and turns the answer back', async () => {
    const { calls } = renderTimeline()
    useTimelineUi.getState().openCompare(1, { from: 'working', to: 'task-1-pre' })
    await waitFor(async () =>
      expect((await fileItems()).map((li) => li.getAttribute('aria-label')!.split(', ').slice(0, 2))).toEqual(
        [
          ['index.html', 'modified'],
          ['hours.html', 'deleted'],
          ['old.css', 'added'],
          ['src/old.js', 'renamed'],
          ['logo.png', 'modified'],
          ['big.log', 'modified'],
        ],
      ),
    )
    expect(lastCall(calls, 'snapshots.diff')).toEqual({ projectId: 1, target: 'task-1-pre' })
    await userEvent.click(within((await fileItems())[0]!).getByRole('button'))
    const diff = await screen.findByTestId('diff-view')
    // The core's old side is the snapshot (To here): the editor shows the working copy on the left.
    expect(within(diff).getByTestId('original')).toHaveTextContent('new index.html')
    expect(within(diff).getByTestId('modified')).toHaveTextContent('old index.html')
  })

  it('the task card’s range falls back to the working copy when the task has no post-task snapshot', async () => {
    const { calls } = renderTimeline()
    useTimelineUi.getState().openTaskCompare(1, 9)
    await fileItems()
    expectRange('task-9-pre', 'working')
    expect(lastCall(calls, 'snapshots.diff')).toEqual({ projectId: 1, target: 'task-9-pre' })
  })

  it('choosing To changes the range; the same snapshot on both sides has nothing to compare', async () => {
    renderTimeline()
    await compareOn('task-2-post')
    await fileItems()
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'To' }), 'task-2-pre')
    expect(await screen.findByText(/nothing to compare/)).toBeInTheDocument()
    expect(screen.queryByRole('list', { name: 'Changed files' })).toBeNull()
  })

  it('says so when there are no changes, and when the core cannot compare', async () => {
    renderTimeline({
      'snapshots.diff': (input) =>
        (input as Input).target === 'task-1-pre'
          ? {
              from: 'task-1-pre',
              to: 'task-1-post',
              entries: [],
              counts: { added: 0, modified: 0, deleted: 0, renamed: 0 },
            }
          : Promise.reject(new Error('No snapshot "task-2-pre".')),
    })
    await compareOn('task-1-post')
    expect(await screen.findByTestId('compare-summary')).toHaveTextContent(
      'No changes from task-1-pre to task-1-post.',
    )
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'From' }), 'task-2-pre')
    expect(await screen.findByText(/Could not compare: No snapshot "task-2-pre"/)).toBeInTheDocument()
  })

  it('a range opened for another project leaves this project’s list in place', async () => {
    renderTimeline()
    useTimelineUi.getState().openCompare(2, { from: 'task-1-pre', to: 'task-1-post' })
    expect(await screen.findByRole('list', { name: 'Snapshots' })).toBeInTheDocument()
    expect(screen.queryByRole('combobox', { name: 'From' })).toBeNull()
  })

  it('the working copy row’s "Show changes" compares the latest snapshot with the working copy', async () => {
    renderTimeline()
    await userEvent.click(await screen.findByRole('button', { name: 'Show changes' }))
    expectRange('safety-1700000300', 'working')
  })
})

describe('Compare’s From and To reach every snapshot', () => {
  /** Two snapshots per task, newest first; 750 tasks make far more than a page (100) or the old cap of 1,000. */
  const longHistory = (tasks: number) =>
    Array.from({ length: tasks }, (_, i) => tasks - i).flatMap((task) => [
      snap({
        tag: `task-${task}-post`,
        kind: 'task-post',
        task,
        message: task === 3 ? 'Ancient menu rewrite' : `Task number ${task}`,
      }),
      snap({ tag: `task-${task}-pre`, kind: 'task-pre', task, message: `pre-task ${task}` }),
    ])
  /** The core's list and search (store/snapshotsRepo.ts): every word in the message or the tag, a page at a time. */
  const listOf = (long: SnapshotMetaDto[]) => (input: unknown) => {
    const {
      offset = 0,
      limit = 100,
      search = '',
    } = input as { offset?: number; limit?: number; search?: string }
    const words = search.toLowerCase().split(/\s+/).filter(Boolean)
    const hits = long.filter((s) =>
      words.every((w) => s.message.toLowerCase().includes(w) || s.tag.toLowerCase().includes(w)),
    )
    return { items: hits.slice(offset, offset + limit), total: hits.length }
  }
  const renderLong = (tasks = 750) => renderTimeline({ 'snapshots.list': listOf(longHistory(tasks)) })
  const optionValues = (name: 'From' | 'To') =>
    within(screen.getByRole('combobox', { name }))
      .getAllByRole('option')
      .map((o) => (o as HTMLOptionElement).value)

  beforeEach(() =>
    useTimelineUi.setState({ compare: null, compareProject: null, file: null, toWorkingIfMissing: false }),
  )

  it('finds a snapshot beyond the first page by its message and compares from it', async () => {
    const { calls } = renderLong()
    useTimelineUi.getState().openCompare(1, { from: 'task-750-pre', to: 'task-750-post' })
    await fileItems()
    expect(screen.getByTestId('compare-find-count')).toHaveTextContent('the newest 100 of 1,500 snapshots')
    expect(optionValues('From')).toHaveLength(101)
    expect(optionValues('From')).not.toContain('task-3-post')

    await userEvent.type(screen.getByRole('searchbox', { name: 'Find a snapshot' }), 'ancient menu')
    await waitFor(() => expect(optionValues('From')).toContain('task-3-post'))
    expect(screen.getByTestId('compare-find-count')).toHaveTextContent(
      'From and To list the one snapshot mentioning “ancient menu”',
    )
    // The working copy and the side's current snapshot stay choosable while the find narrows the list.
    expect(optionValues('To')).toEqual(['working', 'task-750-post', 'task-3-post'])
    expect(
      within(screen.getByRole('combobox', { name: 'From' })).getByRole('option', {
        name: 'task-3-post · Ancient menu rewrite',
      }),
    ).toBeInTheDocument()
    // The find went to the core's search, not to a filter of what was loaded.
    expect(lastCall(calls, 'snapshots.list')).toMatchObject({ search: 'ancient menu', offset: 0 })

    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'From' }), 'task-3-post')
    await waitFor(() =>
      expect(lastCall(calls, 'snapshots.diff')).toMatchObject({
        target: 'task-3-post',
        against: 'task-750-post',
      }),
    )
    // Clearing the find keeps the choice.
    await userEvent.clear(screen.getByRole('searchbox', { name: 'Find a snapshot' }))
    await waitFor(() => expect(optionValues('From')).toHaveLength(102))
    expect(screen.getByRole('combobox', { name: 'From' })).toHaveValue('task-3-post')
  })

  it('"Show older" adds the next page to both lists, down to the oldest snapshot', async () => {
    renderLong(125)
    useTimelineUi.getState().openCompare(1, { from: 'task-125-pre', to: 'working' })
    await fileItems()
    expect(screen.getByTestId('compare-find-count')).toHaveTextContent(
      'From and To list the newest 100 of 250 snapshots',
    )
    expect(optionValues('To')).not.toContain('task-70-pre')
    await userEvent.click(screen.getByRole('button', { name: 'Show older' }))
    await waitFor(() => expect(optionValues('To')).toContain('task-70-pre'))
    expect(screen.getByTestId('compare-find-count')).toHaveTextContent(
      'From and To list the newest 200 of 250 snapshots',
    )
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'To' }), 'task-70-pre')
    expect(screen.getByRole('combobox', { name: 'To' })).toHaveValue('task-70-pre')

    await userEvent.click(screen.getByRole('button', { name: 'Show older' }))
    await waitFor(() =>
      expect(screen.getByTestId('compare-find-count')).toHaveTextContent(
        'From and To list all 250 snapshots',
      ),
    )
    expect(optionValues('From')).toContain('task-1-pre')
    expect(screen.queryByRole('button', { name: 'Show older' })).toBeNull()
  })

  it('a task card’s Compare keeps an old task’s post-task snapshot (it exists, though not on the first page)', async () => {
    const { calls } = renderLong()
    useTimelineUi.getState().openTaskCompare(1, 3)
    await fileItems()
    expectRange('task-3-pre', 'task-3-post')
    expect(lastCall(calls, 'snapshots.diff')).toMatchObject({ target: 'task-3-pre', against: 'task-3-post' })
  })
})
