import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { VirtuosoMockContext } from 'react-virtuoso'
import { beforeEach, describe, expect, it } from 'vitest'
import type { SnapshotMetaDto } from '../../../../shared/api/snapshots'
import { renderWithProviders } from '../../test/render'
import { history, report, snap, snapshotStatus } from './testData'
import { Timeline } from './Timeline'
import { useTimelineUi } from './timelineUi'

const status = snapshotStatus

/** The timeline over a fake core whose store holds `stored` (newest first), paged like the real one. */
function renderTimeline(
  stored: SnapshotMetaDto[] = history,
  handlers: Record<string, (input: unknown) => unknown> = {},
) {
  const state = { stored: [...stored] }
  const view = renderWithProviders(
    <VirtuosoMockContext.Provider value={{ viewportHeight: 20_000, itemHeight: 60 }}>
      <Timeline projectId={1} />
    </VirtuosoMockContext.Provider>,
    {
      // Filtered and searched as the core's SQLite list does.
      'snapshots.list': (input) => {
        const {
          offset = 0,
          limit = 100,
          tasksOnly,
          search = '',
        } = input as { offset?: number; limit?: number; tasksOnly?: boolean; search?: string }
        const words = search.toLowerCase().split(/\s+/).filter(Boolean)
        const matches = state.stored.filter(
          (s) =>
            (!tasksOnly || s.task !== null) &&
            words.every((w) => s.message.toLowerCase().includes(w) || s.tag.includes(w)),
        )
        return { items: matches.slice(offset, offset + limit), total: matches.length }
      },
      'snapshots.status': () => status(),
      'snapshots.baselineState': () => null,
      'snapshots.usage': () => ({ storeBytes: 3 * 1024 * 1024, looseObjects: 4, packs: 1, snapshotCount: 7 }),
      'snapshots.previewRollback': () => report(),
      ...handlers,
    },
  )
  return { ...view, state }
}

const items = () => within(screen.getByRole('list', { name: 'Snapshots' })).getAllByRole('listitem')
const names = () => items().map((li) => li.getAttribute('aria-label')!.split(',')[0])

describe('timeline', () => {
  beforeEach(() => useTimelineUi.setState({ filter: 'everything' }))

  it('lists every snapshot newest first, each item named from its tag, with counts, time and skipped files', async () => {
    renderTimeline()
    await screen.findByRole('list', { name: 'Snapshots' })
    expect(names()).toEqual(history.map((s) => s.tag))
    for (const [li, s] of items().map((li, i) => [li, history[i]!] as const)) {
      expect(li.getAttribute('aria-label')!.startsWith(s.tag)).toBe(true)
    }
    const manual = screen.getByRole('listitem', { name: /^manual-1700000200/ })
    expect(manual).toHaveTextContent('my own save')
    expect(manual).toHaveTextContent('4 files changed: 2 added, 1 changed, 1 deleted')
    expect(manual).toHaveTextContent('5 min ago')
    expect(within(manual).getByText('5 min ago')).toHaveAttribute('title')
    expect(screen.getByRole('listitem', { name: /^baseline-/ })).toHaveTextContent('1 file skipped')
    // Ralph's own files (.ralph/) are counted apart, quieter, their kinds on hover; the user's counts are their own.
    const task1 = screen.getByRole('listitem', {
      name: /^task-1-post, .*, 1 file changed, and 6 files of Ralph’s own/,
    })
    expect(task1).toHaveTextContent('1 file changed · and Ralph’s own files')
    expect(within(task1).getByTestId('ralph-count')).toHaveAttribute(
      'title',
      '6 files of Ralph’s own (.ralph/: its state, plan and logs): 6 changed',
    )
    // Plain words, never "+0 ~1 -0"; the exact time on hover, not an ISO timestamp.
    expect(task1.querySelector('.snapshot-counts')!.textContent).not.toMatch(/[+~-]\d/)
    expect(within(manual).getByText('5 min ago').getAttribute('title')).not.toMatch(/T\d{2}:/)
    // A record from before the split counts everything as the user's.
    expect(within(manual).queryByTestId('ralph-count')).toBeNull()
    expect(within(manual).getByRole('button', { name: 'Roll back' })).not.toHaveAttribute('aria-disabled')
  })

  it('groups entries under their task’s header, with manual and safety entries where they fall', async () => {
    renderTimeline()
    const list = await screen.findByRole('list', { name: 'Snapshots' })
    const text = [...list.querySelectorAll('.timeline-group, [role="listitem"]')].map((el) =>
      el.classList.contains('timeline-group')
        ? `# ${el.textContent}`
        : el.getAttribute('aria-label')!.split(',')[0],
    )
    expect(text).toEqual([
      'safety-1700000300',
      '# Task 2',
      'task-2-post',
      'task-2-pre',
      'manual-1700000200',
      '# Task 1',
      'task-1-post',
      'task-1-pre',
      'baseline-1700000000',
    ])
  })

  it('"Tasks only" hides manual, safety and baseline entries; "Everything" brings them back', async () => {
    renderTimeline()
    await screen.findByRole('list', { name: 'Snapshots' })
    await userEvent.click(screen.getByRole('radio', { name: 'Tasks only' }))
    expect(names()).toEqual(['task-2-post', 'task-2-pre', 'task-1-post', 'task-1-pre'])
    expect(screen.getByRole('radio', { name: 'Tasks only' })).toHaveAttribute('aria-checked', 'true')
    await userEvent.click(screen.getByRole('radio', { name: 'Everything' }))
    expect(names()).toHaveLength(history.length)
  })

  it('pages through snapshots.list', async () => {
    const many = Array.from({ length: 150 }, (_, i) => snap({ tag: `manual-${2000 - i}` }))
    const { calls } = renderTimeline(many)
    await screen.findByRole('list', { name: 'Snapshots' })
    await waitFor(() => expect(items()).toHaveLength(150))
    const pages = calls.filter((c) => c.name === 'snapshots.list').map((c) => c.input)
    expect(pages).toContainEqual({ projectId: 1, offset: 0, limit: 100 })
    expect(pages).toContainEqual({ projectId: 1, offset: 100, limit: 100 })
  })

  it('marks the snapshot the folder stands at as current', async () => {
    renderTimeline()
    await screen.findByRole('listitem', { name: /^safety-1700000300, current,/ })
    expect(screen.queryAllByRole('listitem', { name: /, current,/ })).toHaveLength(1)
  })

  it('shows the working copy against the latest snapshot at the top', async () => {
    renderTimeline()
    await waitFor(() =>
      expect(screen.getByTestId('working-copy')).toHaveTextContent(
        'Working copy3 files changed since safety-1700000300 (1 added, 2 changed) · and Ralph’s own files',
      ),
    )
  })

  it('says so when nothing changed since the latest snapshot, and when there is no snapshot yet', async () => {
    renderTimeline([], {
      'snapshots.status': () =>
        status({
          position: null,
          latest: null,
          dirty: false,
          changes: { added: 0, modified: 0, deleted: 0 },
        }),
    })
    await waitFor(() => expect(screen.getByTestId('working-copy')).toHaveTextContent('No snapshot yet'))
    expect(await screen.findByText(/No snapshots yet/)).toBeInTheDocument()
  })

  it('says the baseline is being taken when the project has no snapshot yet (once it has run for a moment)', async () => {
    renderTimeline([], { 'snapshots.baselineState': () => ({ phase: 'reading', done: 5, total: 10 }) })
    expect(
      await screen.findByText(/^Taking the baseline snapshot/, undefined, { timeout: 10_000 }),
    ).toBeInTheDocument()
    expect(screen.queryByText(/No snapshots yet/)).toBeNull()
  })

  it('"Save snapshot" saves a manual snapshot, says so in a toast, and the list reads it back', async () => {
    const saved = snap({
      tag: 'manual-1700000400',
      added: 1,
      modified: 2,
      ralph: { added: 0, modified: 2, deleted: 0 },
    })
    const view = renderTimeline(history, {
      'snapshots.save': () => {
        view.state.stored.unshift(saved)
        return saved
      },
    })
    await screen.findByRole('list', { name: 'Snapshots' })
    await userEvent.click(screen.getByRole('button', { name: 'Save snapshot' }))
    const prompt = await screen.findByRole('dialog', { name: 'Save a snapshot' })
    // Enter saves; a double Enter saves once.
    await userEvent.type(within(prompt).getByRole('textbox', { name: 'Name (optional)' }), '{Enter}{Enter}')
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Save a snapshot' })).toBeNull())
    expect(view.calls.filter((c) => c.name === 'snapshots.save').map((c) => c.input)).toEqual([
      { projectId: 1, kind: 'manual' },
    ])
    expect(await screen.findByText('Saved manual-1700000400')).toBeInTheDocument()
    // The user's file, Ralph's own apart.
    expect(screen.getByText('1 file added · and Ralph’s own files')).toBeInTheDocument()
    view.emit('snapshot.created', { projectId: 1, snapshot: saved })
    await waitFor(() => expect(names()[0]).toBe('manual-1700000400'))
  })

  it('"Save snapshot" takes an optional name; Esc cancels without saving', async () => {
    const saved = snap({ tag: 'manual-1700000400', message: 'Before the redesign' })
    const view = renderTimeline(history, { 'snapshots.save': () => saved })
    await screen.findByRole('list', { name: 'Snapshots' })
    await userEvent.click(screen.getByRole('button', { name: 'Save snapshot' }))
    let name = await screen.findByRole('textbox', { name: 'Name (optional)' })
    await userEvent.type(name, 'never saved{Escape}')
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Save a snapshot' })).toBeNull())
    expect(view.calls.some((c) => c.name === 'snapshots.save')).toBe(false)
    await userEvent.click(screen.getByRole('button', { name: 'Save snapshot' }))
    name = await screen.findByRole('textbox', { name: 'Name (optional)' })
    expect(name).toHaveValue('')
    await userEvent.type(name, '  Before the  redesign {Enter}')
    await waitFor(() =>
      expect(view.calls.find((c) => c.name === 'snapshots.save')?.input).toEqual({
        projectId: 1,
        kind: 'manual',
        message: 'Before the redesign',
      }),
    )
    expect(await screen.findByText('Saved “Before the redesign” as manual-1700000400')).toBeInTheDocument()
  })

  it('searches messages through the store, past the loaded pages, with the filter, and says when nothing matches', async () => {
    const many = Array.from({ length: 300 }, (_, i) =>
      snap({ tag: `manual-${3000 - i}`, message: i === 5 || i === 290 ? `Price list ${i}` : `step ${i}` }),
    )
    const { calls } = renderTimeline(many)
    await screen.findByRole('list', { name: 'Snapshots' })
    await userEvent.type(screen.getByRole('searchbox', { name: 'Search snapshots' }), 'price')
    // The search goes to the core once typing pauses (on a slow machine a pause may fall mid-word, so wait for the
    // whole word's search), and the core finds the match beyond the first page of 100.
    const searches = () =>
      calls.filter((c) => (c.input as { search?: string }).search !== undefined).map((c) => c.input)
    await waitFor(() =>
      expect(searches()).toContainEqual({ projectId: 1, offset: 0, limit: 100, search: 'price' }),
    )
    await waitFor(() => expect(names()).toEqual(['manual-2995', 'manual-2710']))
    expect(screen.getByText('2 matches')).toBeInTheDocument()

    await userEvent.click(screen.getByRole('radio', { name: 'Tasks only' }))
    expect(await screen.findByText('No snapshot of a task mentions “price”.')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('radio', { name: 'Everything' }))
    await waitFor(() => expect(names()).toHaveLength(2))
    // Escape clears the search: the whole list is back.
    await userEvent.type(screen.getByRole('searchbox', { name: 'Search snapshots' }), '{Escape}')
    await waitFor(() => expect(items().length).toBeGreaterThan(2))
    // 300 rows typed into on a shared 2-core machine (other test files running beside it): slow, not stuck.
  }, 120_000)

  it('shows what the store takes on disk; Clean up previews what goes, runs, and says what it freed', async () => {
    const { calls } = renderTimeline(history, {
      'snapshots.prune': (input) => {
        const { dryRun } = input as { dryRun?: boolean }
        return {
          removedTags: ['manual-1700000200'],
          bytesBefore: 3 * 1024 * 1024,
          bytesAfter: dryRun ? 3 * 1024 * 1024 : 1024 * 1024,
          dryRun: !!dryRun,
        }
      },
    })
    await waitFor(() =>
      expect(screen.getByTestId('snapshot-storage')).toHaveTextContent('7 snapshots · 3.0 MB on disk'),
    )
    await userEvent.click(screen.getByRole('button', { name: 'Clean up' }))
    const dialog = await screen.findByRole('alertdialog', { name: 'Clean up snapshots' })
    await within(dialog).findByText('Removes 1 snapshot: manual-1700000200.')
    expect(calls.find((c) => c.name === 'snapshots.prune')?.input).toEqual({
      projectId: 1,
      olderThanDays: 30,
      keepLast: 20,
      dryRun: true,
    })
    await userEvent.click(within(dialog).getByRole('button', { name: 'Clean up' }))
    expect(await within(dialog).findByTestId('cleanup-result')).toHaveTextContent(
      'Freed 2.0 MB (3.0 MB → 1.0 MB); removed 1 snapshot.',
    )
    expect(calls.filter((c) => c.name === 'snapshots.prune').map((c) => c.input)).toContainEqual({
      projectId: 1,
      olderThanDays: 30,
      keepLast: 20,
    })
    await userEvent.click(within(dialog).getByRole('button', { name: 'Done' }))
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull())
  })

  it('offers Compare on every item, enabled (the Compare view: Compare.test.tsx)', async () => {
    renderTimeline()
    await screen.findByRole('list', { name: 'Snapshots' })
    for (const item of items())
      expect(within(item).getByRole('button', { name: 'Compare' })).not.toHaveAttribute('aria-disabled')
  })

  it('"Roll back" on an item opens the dialog for its tag', async () => {
    renderTimeline()
    const item = await screen.findByRole('listitem', { name: /^task-1-pre/ })
    await userEvent.click(within(item).getByRole('button', { name: 'Roll back' }))
    expect(await screen.findByRole('alertdialog', { name: 'Roll back to task-1-pre' })).toBeInTheDocument()
  })
})
