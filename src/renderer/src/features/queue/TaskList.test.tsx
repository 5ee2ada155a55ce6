import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { VirtuosoMockContext } from 'react-virtuoso'
import { describe, expect, it } from 'vitest'
import type { QueueView } from '../../../../shared/queue'
import { idleBuild } from '../../../../shared/queueBuild'
import { renderWithProviders } from '../../test/render'
import { QueuePanel } from './QueuePanel'
import { emptyQueue, taskView } from './testData'

/** A queue as `npm run bench:queue` makes them: 2,000 pending tasks, each after the one before. */
function bigQueue(size: number): QueueView {
  const id = (i: number) => `t-${String(i).padStart(4, '0')}`
  const tasks = Array.from({ length: size }, (_, i) =>
    taskView(id(i), `Task ${i + 1}`, i === 0 ? {} : { deps: [id(i - 1)], blockedBy: [id(i - 1)] }),
  )
  return {
    ...emptyQueue(),
    exists: true,
    spec: 'spec.md',
    stage: 'BUILD',
    tasks,
    order: tasks.map((t) => t.id),
  }
}

describe('Work queue list with 2,000 tasks', () => {
  it('renders only a window of rows, and End reaches the last task (Home the first)', async () => {
    const state = bigQueue(2000)
    renderWithProviders(
      // A panel 600 px high, rows about 100 px: a window of a few dozen rows at most.
      <VirtuosoMockContext.Provider value={{ viewportHeight: 600, itemHeight: 100 }}>
        <QueuePanel projectId={1} />
      </VirtuosoMockContext.Provider>,
      {
        'queue.state': () => state,
        'queue.notifications': () => ({ items: [], total: 0 }),
        'queue.buildStatus': () => idleBuild(),
        'queue.verdicts': () => ({ verifications: [] }),
      },
    )
    const list = await screen.findByRole('list', { name: 'Work queue' })
    const rows = () =>
      within(list)
        .getAllByRole('listitem')
        .filter((li) => li.parentElement?.closest('[role="list"]') === list)
    await waitFor(() => expect(rows().length).toBeGreaterThan(0))
    expect(rows().length).toBeLessThan(50)
    expect(rows()[0]).toHaveAccessibleName('Task 1')
    expect(within(list).queryByRole('listitem', { name: 'Task 2000' })).toBeNull()

    // Keyboard: Tab into the first row's controls, End jumps to the last task and focuses it.
    within(rows()[0]!).getAllByRole('button')[0]!.focus()
    // happy-dom lays nothing out: give the panel the height a browser would (2,000 rows of 100 px) so a scroll
    // has somewhere to go, and send the scroll event a browser sends after scrollTop moves.
    const scroller = list.closest<HTMLElement>('.queue')!
    Object.defineProperty(scroller, 'scrollHeight', { configurable: true, value: 2000 * 100 })
    Object.defineProperty(scroller, 'offsetHeight', { configurable: true, value: 600 })
    await userEvent.keyboard('{End}')
    expect(scroller.scrollTop).toBeGreaterThan(190_000)
    fireEvent.scroll(scroller)
    const last = await within(list).findByRole('listitem', { name: 'Task 2000' })
    await waitFor(() => expect(last).toContainElement(document.activeElement as HTMLElement))
    expect(last).toHaveTextContent('Waiting')
    expect(within(last).getByRole('button', { name: 'Move down' })).toHaveAttribute('aria-disabled', 'true')
    expect(rows().length).toBeLessThan(50)

    await userEvent.keyboard('{Home}')
    expect(scroller.scrollTop).toBe(0)
    fireEvent.scroll(scroller)
    const first = await within(list).findByRole('listitem', { name: 'Task 1' })
    await waitFor(() => expect(first).toContainElement(document.activeElement as HTMLElement))
  })
})
