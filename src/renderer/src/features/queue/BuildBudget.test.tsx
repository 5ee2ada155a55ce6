import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { VirtuosoMockContext } from 'react-virtuoso'
import { beforeEach, describe, expect, it } from 'vitest'
import type { BuildBudgetStatus } from '../../../../shared/api/queue'
import type { QueueView } from '../../../../shared/queue'
import { applyBuildEvent, idleBuild, type BuildProgress } from '../../../../shared/queueBuild'
import { renderWithProviders } from '../../test/render'
import { QueuePanel } from './QueuePanel'
import { useQueueUi } from './queueUi'
import { filledQueue } from './testData'

const buildable = (): QueueView => {
  const q = filledQueue()
  return { ...q, tasks: q.tasks.filter((t) => t.status !== 'done') }
}

type Status = BuildProgress & { budget?: BuildBudgetStatus }

function renderPanel(status: () => Status, handlers: Record<string, (input: unknown) => unknown> = {}) {
  return renderWithProviders(
    <VirtuosoMockContext.Provider value={{ viewportHeight: 10_000, itemHeight: 120 }}>
      <QueuePanel projectId={1} />
    </VirtuosoMockContext.Provider>,
    {
      'queue.state': () => buildable(),
      'queue.notifications': () => ({ items: [], total: 0 }),
      'queue.buildStatus': status,
      'queue.verdicts': () => ({ verifications: [] }),
      ...handlers,
    },
  )
}

const running = (budget: BuildBudgetStatus): Status => ({
  ...applyBuildEvent(
    idleBuild(),
    {
      type: 'build.started',
      mode: 'hybrid',
      order: ['t-grid'],
      budget: { maxCostUsd: budget.maxCostUsd, maxMinutes: budget.maxMinutes },
    },
    Date.now() - 90_000,
  ),
  budget,
})

describe('Queue panel: build budgets', () => {
  beforeEach(() => {
    localStorage.clear()
    useQueueUi.setState({ budgets: {} })
  })

  it('checks the budgets as typed, says what is wrong, sends only what was set, and remembers them', async () => {
    const view = renderPanel(() => idleBuild(), { 'queue.build': () => ({ started: true }) })
    // The button is re-rendered (with or without its tooltip): find it afresh each time.
    const build = () => screen.getByRole('button', { name: 'Build' })
    await waitFor(() => expect(build()).not.toHaveAttribute('aria-disabled'))
    const cost = screen.getByRole('textbox', { name: 'Cost budget (USD)' })
    const minutes = screen.getByRole('textbox', { name: 'Time budget (minutes)' })

    await userEvent.type(cost, 'ten')
    expect(cost).toHaveAttribute('aria-invalid', 'true')
    expect(cost).toHaveAccessibleDescription(
      'Enter the cost budget as a number, e.g. 2.50 (US dollars), or leave it empty for no limit.',
    )
    expect(build()).toHaveAttribute('aria-disabled', 'true')
    await userEvent.hover(build())
    expect(await screen.findByRole('tooltip')).toHaveTextContent(
      /Fix the budget first: Enter the cost budget/,
    )

    await userEvent.clear(cost)
    await userEvent.type(cost, '$2.50')
    await userEvent.type(minutes, '-5')
    expect(minutes).toHaveAccessibleDescription(
      'The time budget must be more than 0; leave it empty for no limit.',
    )
    await userEvent.clear(minutes)
    await userEvent.type(minutes, '20000')
    expect(minutes).toHaveAccessibleDescription('The time budget can be at most 10,080 minutes (a week).')
    await userEvent.clear(minutes)
    await userEvent.type(minutes, '30')
    expect(cost).not.toHaveAttribute('aria-invalid')
    expect(minutes).not.toHaveAttribute('aria-invalid')
    await waitFor(() => expect(build()).not.toHaveAttribute('aria-disabled'))
    await userEvent.click(build())
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'queue.build').map((c) => c.input)).toEqual([
        { projectId: 1, mode: 'hybrid', maxCostUsd: 2.5, maxMinutes: 30 },
      ]),
    )

    // Remembered for this project across a reload of the panel (and the page: they are in localStorage).
    view.unmount()
    expect(JSON.parse(localStorage.getItem('ralph.queue.budgets') ?? '{}')).toEqual({
      1: { cost: '$2.50', minutes: '30' },
    })
    renderPanel(() => idleBuild())
    expect(await screen.findByRole('textbox', { name: 'Cost budget (USD)' })).toHaveValue('$2.50')
    expect(screen.getByRole('textbox', { name: 'Time budget (minutes)' })).toHaveValue('30')
  })

  it('shows the spend and time against the budget, the 75% warning and the stop at 100%', async () => {
    let status: Status = running({ maxCostUsd: 1, maxMinutes: 30, spentUsd: 0.4, alerts: [] })
    const view = renderPanel(() => status)
    const use = await screen.findByRole('group', { name: 'Budget use' })
    expect(use).toHaveTextContent('Cost$0.4000 of $1.00')
    expect(use).toHaveTextContent(/Time1 min 3\d s of 30 min 00 s/)
    expect(within(use).getByRole('meter', { name: 'Cost budget used' })).toHaveAttribute(
      'aria-valuenow',
      '40',
    )
    expect(within(use).getByRole('meter', { name: 'Time budget used' })).toHaveAttribute('aria-valuenow', '5')

    // The build crosses a cost threshold: its status gains the alert, and a buildEvent refreshes it.
    const reach = (level: 'warn' | 'stop', used: number) => {
      const alert = {
        level,
        kind: 'cost' as const,
        used,
        limit: 1,
        message: `$${used.toFixed(4)} of the $1 cost budget`,
      }
      status = {
        ...status,
        budget: { ...status.budget!, spentUsd: used, alerts: [...status.budget!.alerts, alert] },
      }
      view.emit('queue.buildEvent', {
        projectId: 1,
        event: { type: 'build.budget', level, kind: 'cost', used, limit: 1, message: 'x' },
      })
    }

    // The build's warning arrives (as a buildEvent refreshes the status).
    reach('warn', 0.8)
    await waitFor(() => expect(use).toHaveTextContent('Cost budget 75% used. $0.8000 of the $1 cost budget'))
    expect(within(use).getByRole('meter', { name: 'Cost budget used' })).toHaveAttribute(
      'aria-valuenow',
      '80',
    )

    // Then the stop, while the build winds down: an alert in place of the warning.
    reach('stop', 1.02)
    const stop = await within(use).findByRole('alert')
    expect(stop).toHaveTextContent('Stopped at the cost budget. $1.0200 of the $1 cost budget')
    expect(use).not.toHaveTextContent('75% used')

    // The build ends with its status "budget": its result says so, the line keeps the final spend and time.
    status = {
      ...applyBuildEvent(
        status,
        {
          type: 'build.finished',
          status: 'budget',
          message: 'The build stopped: it used $1.0200 of the $1 cost budget.',
          accepted: [],
          costUsd: 1.02,
          durationMs: 300_000,
        },
        Date.now(),
      ),
      budget: status.budget,
    }
    view.emit('queue.buildEvent', {
      projectId: 1,
      event: {
        type: 'build.finished',
        status: 'budget',
        message: 'x',
        accepted: [],
        costUsd: 1.02,
        durationMs: 300_000,
      },
    })
    const section = screen.getByRole('region', { name: 'Build progress' })
    await waitFor(() =>
      expect(section).toHaveTextContent('Build stopped at its budget. The build stopped: it used $1.0200'),
    )
    const after = screen.getByRole('group', { name: 'Budget use' })
    expect(after).toHaveTextContent('Cost$1.02 of $1.00')
    expect(after).toHaveTextContent('Time5 min 00 s of 30 min 00 s')
    expect(within(after).getByRole('meter', { name: 'Cost budget used' })).toHaveAttribute(
      'aria-valuenow',
      '100',
    )
  })
})
