import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { VirtuosoMockContext } from 'react-virtuoso'
import { describe, expect, it } from 'vitest'
import type { QueueEscalation } from '../../../../shared/api/queue'
import { idleBuild } from '../../../../shared/queueBuild'
import { renderWithProviders } from '../../test/render'
import { QueuePanel } from './QueuePanel'
import { filledQueue } from './testData'

const escalation = (extra: Partial<QueueEscalation> = {}): QueueEscalation => ({
  taskId: 't-grid',
  kind: 'failures',
  message:
    't-grid failed 3 times; the project was rolled back to before its first attempt.\n\nAC2: only 6 of 8 flavors',
  failures: 3,
  rolledBackTo: 'task-4-pre',
  safetyTag: 'safety-1700000000000',
  at: 1_700_000_000_000,
  ...extra,
})

function renderPanel(items: QueueEscalation[]) {
  let open = items
  // The list is virtualized and jsdom lays nothing out: a viewport that holds every row.
  const panel = (
    <VirtuosoMockContext.Provider value={{ viewportHeight: 10_000, itemHeight: 120 }}>
      <QueuePanel projectId={1} />
    </VirtuosoMockContext.Provider>
  )
  return renderWithProviders(panel, {
    'queue.state': () => filledQueue(),
    'queue.notifications': () => ({ items: [], total: 0 }),
    'queue.buildStatus': () => idleBuild(),
    'queue.verdicts': () => ({ verifications: [] }),
    'queue.escalations': () => ({ items: open }),
    'queue.retry': (input) => {
      const retried = open.find((e) => e.taskId === (input as { id: string }).id)!
      open = open.filter((e) => e !== retried)
      return { retried }
    },
  })
}

const item = async (name: string) =>
  within(await screen.findByRole('list', { name: 'Work queue' })).findByRole('listitem', { name })

describe('an escalated task in the Work queue', () => {
  it('shows "Escalated" with the reason and the rollback; Retry ends the escalation', async () => {
    const view = renderPanel([escalation()])
    const grid = await item('Flavor grid')
    await waitFor(() => expect(within(grid).getByText('Escalated')).toBeInTheDocument())
    expect(grid).toHaveTextContent('Failed 3 times; the project was rolled back to task-4-pre')
    expect(grid).toHaveTextContent('safety-1700000000000')
    expect(grid).toHaveTextContent('AC2: only 6 of 8 flavors')
    // Other tasks are not escalated.
    expect(within(await item('Hero copy')).queryByText('Escalated')).toBeNull()
    expect(within(await item('Hero copy')).queryByRole('button', { name: 'Retry' })).toBeNull()

    await userEvent.click(within(grid).getByRole('button', { name: 'Retry' }))
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'queue.retry').map((c) => c.input)).toEqual([
        { projectId: 1, id: 't-grid' },
      ]),
    )
    await waitFor(() => expect(within(grid).queryByText('Escalated')).toBeNull())
    expect(within(grid).getByText('Next')).toBeInTheDocument()
    expect(within(grid).queryByRole('button', { name: 'Retry' })).toBeNull()
  })

  it('says a stuck task got stuck again after a re-plan', async () => {
    renderPanel([escalation({ taskId: 't-copy', kind: 'stuck', rolledBackTo: null, safetyTag: null })])
    const copy = await item('Hero copy')
    await waitFor(() => expect(copy).toHaveTextContent('Got stuck again after a re-plan from scratch.'))
    expect(within(copy).getByRole('button', { name: 'Retry' })).toBeInTheDocument()
  })
})
