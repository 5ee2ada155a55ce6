import { VirtuosoMockContext } from 'react-virtuoso'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { QueueView } from '../../../../shared/queue'
import { renderWithProviders } from '../../test/render'
import { idleBuild } from '../../../../shared/queueBuild'
import { QueuePanel } from './QueuePanel'
import { emptyQueue, filledQueue, mutation } from './testData'

// The task list is virtualized: happy-dom lays nothing out, so the list is given a viewport that holds every row.
const VirtualQueuePanel = () => (
  <VirtuosoMockContext.Provider value={{ viewportHeight: 10_000, itemHeight: 120 }}>
    <QueuePanel projectId={1} />
  </VirtuosoMockContext.Provider>
)

function renderPanel(state: QueueView, handlers: Record<string, (input: unknown) => unknown> = {}) {
  let current = state
  const view = renderWithProviders(<VirtualQueuePanel />, {
    'queue.state': () => current,
    'queue.notifications': () => ({ items: [], total: 0 }),
    'queue.buildStatus': () => idleBuild(),
    'queue.verdicts': () => ({ verifications: [] }),
    // No spec file exists until one is saved.
    'queue.spec': (input) => ({ path: (input as { path?: string }).path ?? null, exists: false, text: null }),
    ...handlers,
  })
  return { ...view, setState: (s: QueueView) => (current = s) }
}

const queue = () => screen.findByRole('list', { name: 'Work queue' })
const item = async (name: string) => within(await queue()).getByRole('listitem', { name })
const callsOf = (calls: { name: string; input: unknown }[], name: string) =>
  calls.filter((c) => c.name === name).map((c) => c.input)

describe('Queue panel', () => {
  it('explains an empty queue and how to fill it; Build says why there is nothing to build', async () => {
    renderPanel(emptyQueue())
    expect(await screen.findByRole('status', { name: 'Stage' })).toHaveTextContent('PLAN')
    expect(screen.getByText('The work queue is empty')).toBeInTheDocument()
    // What to click, not what to type in a terminal.
    expect(screen.getByText(/Brainstorm button/)).toBeInTheDocument()
    expect(screen.queryByText(/ralph /)).toBeNull()
    const build = screen.getByRole('button', { name: 'Build' })
    expect(build).toHaveAttribute('aria-disabled', 'true')
    await userEvent.hover(build)
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Nothing to build yet: add a first task')
    expect(screen.queryByRole('list', { name: 'Work queue' })).toBeNull()
  })

  it('lists tasks in build order with status, dependencies by name, DET/LLM chips and priority', async () => {
    renderPanel(filledQueue())
    expect(await screen.findByRole('status', { name: 'Stage' })).toHaveTextContent('BUILD')
    const names = within(await queue())
      .getAllByRole('listitem')
      // The list's own items, not the criteria lists inside them.
      .filter(
        (li) =>
          li.parentElement?.closest('[role="list"], ul, ol')?.getAttribute('aria-label') === 'Work queue',
      )
      .map((li) => li.getAttribute('aria-label'))
    expect(names).toEqual(['Set up the page', 'Flavor grid', 'Flavor cards', 'Hero copy'])
    const done = await item('Set up the page')
    expect(done).toHaveTextContent('Done')
    expect(done).toHaveTextContent('awaiting acceptance')
    const grid = await item('Flavor grid')
    expect(grid).toHaveTextContent('Next')
    expect(grid).toHaveTextContent('high priority')
    const chips = within(within(grid).getByRole('list', { name: 'Acceptance criteria' })).getAllByRole(
      'listitem',
    )
    expect(chips.map((c) => c.textContent)).toEqual([
      'DETAC1npm test passes',
      'LLMAC2the grid shows every flavor',
    ])
    const cards = await item('Flavor cards')
    expect(cards).toHaveTextContent('Waiting')
    expect(cards).toHaveTextContent('After Flavor grid')
    expect(cards).toHaveTextContent('Reuse the grid tokens')
    // Up across its own dependency is refused before asking the core.
    expect(within(cards).getByRole('button', { name: 'Move up' })).toHaveAttribute('aria-disabled', 'true')
    expect(within(grid).getByRole('button', { name: 'Move up' })).toHaveAttribute('aria-disabled', 'true')
    expect(within(grid).getByRole('button', { name: 'Move down' })).toHaveAttribute('aria-disabled', 'true')
    // Removing a task another one depends on is refused with the reason.
    expect(within(grid).getByRole('button', { name: 'Remove' })).toHaveAttribute('aria-disabled', 'true')
    expect(screen.getByRole('list', { name: 'Issues' })).toHaveTextContent('The footer overlaps on mobile')
  })

  it('moves a task in the build order through queue.reorder', async () => {
    const view = renderPanel(filledQueue(), { 'queue.reorder': () => mutation(filledQueue()) })
    await userEvent.click(within(await item('Hero copy')).getByRole('button', { name: 'Move up' }))
    await waitFor(() =>
      expect(callsOf(view.calls, 'queue.reorder')).toEqual([{ projectId: 1, id: 't-copy', direction: 'up' }]),
    )
  })

  it('adds a task with criteria one per line, dependencies by name and a priority', async () => {
    const view = renderPanel(filledQueue(), { 'queue.addTask': () => mutation(filledQueue()) })
    await userEvent.click(await screen.findByRole('button', { name: 'Add task' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add task' })
    const save = within(dialog).getByRole('button', { name: 'Add task' })
    expect(save).toHaveAttribute('aria-disabled', 'true')
    await userEvent.type(within(dialog).getByLabelText('Name'), 'Store page')
    await userEvent.type(
      within(dialog).getByLabelText('Acceptance criteria'),
      'DET: npm test{Enter}{Enter}the store lists 3 shops',
    )
    expect(dialog).toHaveTextContent('One line has no tag and will count as LLM:')
    await userEvent.click(within(dialog).getByRole('checkbox', { name: /Flavor cards/ }))
    await userEvent.selectOptions(within(dialog).getByLabelText('Priority'), 'high')
    // The button is rendered anew once enabled (it loses its tooltip), so it is found again.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add task' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(callsOf(view.calls, 'queue.addTask')).toEqual([
      {
        projectId: 1,
        name: 'Store page',
        notes: '',
        accept: ['DET: npm test', 'the store lists 3 shops'],
        deps: ['t-card'],
        priority: 'high',
      },
    ])
  })

  it('creates a new spec file with the first task: no file has to exist beforehand', async () => {
    const view = renderPanel(emptyQueue(), {
      'queue.saveSpec': (input) => ({ path: (input as { path: string }).path, created: true }),
      'queue.addTask': () => mutation(filledQueue()),
    })
    await userEvent.click(await screen.findByRole('button', { name: 'Add a first task' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add task' })
    const spec = within(dialog).getByRole('group', { name: 'Spec' })
    expect(within(dialog).getByLabelText('Spec file')).toHaveValue('specs/tasks.md')
    expect(await within(spec).findByText('new file')).toBeInTheDocument()
    expect(spec).toHaveTextContent('New spec')
    await userEvent.clear(within(dialog).getByLabelText('Spec file'))
    await userEvent.type(within(dialog).getByLabelText('Spec file'), 'specs/menu.md')
    await userEvent.type(within(dialog).getByLabelText('Spec text'), '# Menu{Enter}{Enter}A price list.')
    await userEvent.type(within(dialog).getByLabelText('Name'), 'First')
    await waitFor(() =>
      expect(within(dialog).getByRole('button', { name: 'Add task' })).not.toHaveAttribute('aria-disabled'),
    )
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add task' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    // The spec is written first, then the task that belongs to it.
    expect(callsOf(view.calls, 'queue.saveSpec')).toEqual([
      { projectId: 1, path: 'specs/menu.md', text: '# Menu\n\nA price list.' },
    ])
    const names = view.calls.map((c) => c.name)
    expect(names.indexOf('queue.saveSpec')).toBeLessThan(names.indexOf('queue.addTask'))
    expect(callsOf(view.calls, 'queue.addTask')).toEqual([
      {
        projectId: 1,
        name: 'First',
        notes: '',
        accept: [],
        deps: [],
        priority: 'medium',
        spec: 'specs/menu.md',
      },
    ])
  })

  it('says what is wrong next to the field as the user types, and keeps Add task blocked until it is fixed', async () => {
    const view = renderPanel(emptyQueue(), { 'queue.addTask': () => mutation(filledQueue()) })
    await userEvent.click(await screen.findByRole('button', { name: 'Add a first task' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add task' })
    const path = within(dialog).getByLabelText('Spec file')
    await userEvent.clear(path)
    await userEvent.type(path, 'notes.txt')
    expect(path).toHaveAttribute('aria-invalid', 'true')
    expect(path).toHaveAccessibleDescription('A spec is a markdown file: end the name with .md.')
    await userEvent.type(path, '{Backspace}{Backspace}{Backspace}md')
    expect(path).not.toHaveAttribute('aria-invalid')
    const name = within(dialog).getByLabelText('Name')
    await userEvent.type(name, 'x{Backspace}')
    expect(name).toHaveAccessibleDescription('Give the task a name.')
    const add = within(dialog).getByRole('button', { name: 'Add task' })
    expect(add).toHaveAttribute('aria-disabled', 'true')
    await userEvent.click(add)
    expect(callsOf(view.calls, 'queue.addTask')).toEqual([])
  })

  it('shows the core’s refusal in the dialog’s footer, beside the buttons', async () => {
    renderPanel(emptyQueue(), {
      'queue.saveSpec': () => ({ path: 'specs/tasks.md', created: true }),
      'queue.addTask': () => {
        throw new Error('The spec file specs/tasks.md does not exist')
      },
    })
    await userEvent.click(await screen.findByRole('button', { name: 'Add a first task' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add task' })
    await within(dialog).findByText('new file')
    await userEvent.type(within(dialog).getByLabelText('Name'), 'First')
    await waitFor(() =>
      expect(within(dialog).getByRole('button', { name: 'Add task' })).not.toHaveAttribute('aria-disabled'),
    )
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add task' }))
    const alert = await within(dialog).findByRole('alert')
    expect(alert).toHaveTextContent('specs/tasks.md does not exist')
    expect(alert.closest('.queue-dialog-footer')).not.toBeNull()
  })

  it('edits a task from its current values', async () => {
    const view = renderPanel(filledQueue(), { 'queue.editTask': () => mutation(filledQueue()) })
    await userEvent.click(within(await item('Flavor grid')).getByRole('button', { name: 'Edit' }))
    const dialog = await screen.findByRole('dialog', { name: 'Edit Flavor grid' })
    expect(within(dialog).getByLabelText('Acceptance criteria')).toHaveValue(
      'DET: npm test passes\nLLM: the grid shows every flavor',
    )
    // A task cannot depend on itself: it is not offered.
    expect(within(dialog).queryByRole('checkbox', { name: /Flavor grid/ })).toBeNull()
    const name = within(dialog).getByLabelText('Name')
    await userEvent.clear(name)
    await userEvent.type(name, 'Flavor grid v2')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(callsOf(view.calls, 'queue.editTask')).toEqual([
      {
        projectId: 1,
        id: 't-grid',
        name: 'Flavor grid v2',
        notes: '',
        accept: ['DET: npm test passes', 'LLM: the grid shows every flavor'],
        deps: [],
        priority: 'high',
      },
    ])
  })

  it('edits the spec’s text from a task’s dialog without touching the task', async () => {
    const view = renderPanel(filledQueue(), {
      'queue.spec': () => ({ path: 'spec.md', exists: true, text: '# Flavors\n' }),
      'queue.saveSpec': () => ({ path: 'spec.md', created: false }),
      'queue.editTask': () => mutation(filledQueue()),
    })
    await userEvent.click(within(await item('Flavor grid')).getByRole('button', { name: 'Edit' }))
    const dialog = await screen.findByRole('dialog', { name: 'Edit Flavor grid' })
    expect(within(dialog).queryByLabelText('Spec text')).toBeNull()
    await userEvent.click(within(dialog).getByRole('button', { name: 'Edit spec' }))
    const text = within(dialog).getByLabelText('Spec text')
    await waitFor(() => expect(text).toHaveValue('# Flavors\n'))
    await userEvent.type(text, 'Eight of them.')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    expect(callsOf(view.calls, 'queue.saveSpec')).toEqual([
      { projectId: 1, path: 'spec.md', text: '# Flavors\nEight of them.' },
    ])
    expect(callsOf(view.calls, 'queue.editTask')).toEqual([])
  })

  it('keeps editing the task it opened when the task leaves the queue meanwhile', async () => {
    const view = renderPanel(filledQueue(), {
      'queue.editTask': () => {
        throw new Error('There is no task t-grid in the queue.')
      },
    })
    await userEvent.click(within(await item('Flavor grid')).getByRole('button', { name: 'Edit' }))
    const dialog = await screen.findByRole('dialog', { name: 'Edit Flavor grid' })
    view.setState({ ...filledQueue(), tasks: filledQueue().tasks.filter((t) => t.id !== 't-grid') })
    view.emit('queue.changed', { projectId: 1, commit: null })
    await waitFor(() =>
      expect(screen.queryByRole('listitem', { name: 'Flavor grid', hidden: true })).toBeNull(),
    )
    expect(screen.getByRole('dialog', { name: 'Edit Flavor grid' })).toBe(dialog)
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }))
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('There is no task t-grid')
    expect(callsOf(view.calls, 'queue.addTask')).toEqual([])
  })

  it('removes a task only after confirming', async () => {
    const view = renderPanel(filledQueue(), { 'queue.removeTask': () => mutation(filledQueue()) })
    await userEvent.click(within(await item('Hero copy')).getByRole('button', { name: 'Remove' }))
    const confirm = await screen.findByRole('alertdialog', { name: 'Remove Hero copy?' })
    expect(confirm).toHaveTextContent('shown as cancelled')
    await userEvent.click(within(confirm).getByRole('button', { name: 'Remove' }))
    await waitFor(() =>
      expect(callsOf(view.calls, 'queue.removeTask')).toEqual([{ projectId: 1, id: 't-copy' }]),
    )
  })

  it('accepts a done task, and rejects one only with a reason', async () => {
    const view = renderPanel(filledQueue(), {
      'queue.accept': () => mutation(filledQueue()),
      'queue.reject': () => mutation(filledQueue()),
    })
    const done = await item('Set up the page')
    await userEvent.click(within(done).getByRole('button', { name: 'Accept' }))
    await waitFor(() =>
      expect(callsOf(view.calls, 'queue.accept')).toEqual([{ projectId: 1, ids: ['t-done'] }]),
    )
    // One step: the reason field sits with Reject; Reject does nothing without a reason; Enter submits.
    const reject = () => within(done).getByRole('button', { name: 'Reject' })
    await userEvent.click(reject())
    expect(callsOf(view.calls, 'queue.reject')).toEqual([])
    const reason = within(done).getByRole('textbox', { name: 'Why reject Set up the page?' })
    await userEvent.type(reason, 'The hero is missing{Enter}')
    await waitFor(() =>
      expect(callsOf(view.calls, 'queue.reject')).toEqual([
        { projectId: 1, id: 't-done', reason: 'The hero is missing' },
      ]),
    )
    await waitFor(() => expect(reason).toHaveValue(''))
  })

  it('accepts once however fast the clicks, and the toast names the task', async () => {
    let release!: () => void
    const view = renderPanel(filledQueue(), {
      'queue.accept': () => new Promise((resolve) => (release = () => resolve(mutation(filledQueue())))),
    })
    const accept = within(await item('Set up the page')).getByRole('button', { name: 'Accept' })
    await userEvent.dblClick(accept)
    await waitFor(() => expect(accept).toHaveAttribute('aria-busy', 'true'))
    release()
    expect(await screen.findByText('Accepted “Set up the page”')).toBeInTheDocument()
    expect(callsOf(view.calls, 'queue.accept')).toEqual([{ projectId: 1, ids: ['t-done'] }])
    expect(screen.queryByText(/Accepted t-/)).toBeNull()
  })

  it('refreshes on queue.changed, and shows malformed lines instead of hiding them', async () => {
    const view = renderPanel(emptyQueue())
    await screen.findByText('The work queue is empty')
    view.setState({
      ...filledQueue(),
      malformed: [{ line: 3, text: '{oops', error: 'not valid JSON' }],
    })
    view.emit('queue.changed', { projectId: 1, commit: null })
    await queue()
    expect(screen.getByRole('list', { name: 'Queue problems' })).toHaveTextContent(
      'Line 3 of .ralph/plan.jsonl is not a record (not valid JSON)',
    )
  })

  it('lists notifications newest first with their event', async () => {
    renderPanel(filledQueue(), {
      'queue.notifications': () => ({
        items: [
          {
            file: 'escalation-1.md',
            event: 'escalation',
            at: Date.now(),
            title: 't-grid failed 3 times',
            body: 'Rolled back.',
          },
        ],
        total: 1,
      }),
    })
    const list = await screen.findByRole('list', { name: 'Notifications' })
    expect(within(list).getByRole('listitem', { name: 't-grid failed 3 times' })).toHaveTextContent(
      'Escalated',
    )
  })
})
