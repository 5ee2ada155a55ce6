import { act, screen, within } from '@testing-library/react'
import { beforeEach, describe, expect, it } from 'vitest'
import { renderWithProviders } from '../../test/render'
import { useRuns } from '../../app/runStore'
import { PhaseStepper } from './PhaseStepper'
import { TaskRequirements } from './TaskRequirements'
import { card } from './testData'

const steps = () =>
  within(screen.getByRole('list', { name: 'Phases' }))
    .getAllByRole('listitem')
    .map((li) => `${li.textContent}:${li.className.replace('phase phase-', '')}`)

describe('task card parts', () => {
  beforeEach(() => useRuns.setState({ runs: {} }))

  it('lists the requirements with their markers and counts, and what must be preserved', () => {
    renderWithProviders(<TaskRequirements card={card()} />)
    const items = within(screen.getByRole('list', { name: 'Requirements' })).getAllByRole('listitem')
    expect(items.map((li) => li.textContent)).toEqual([
      'FIXthe heading greets the world',
      'ADD 2two night drinks',
    ])
    expect(within(items[1]!).getByText('ADD 2')).toHaveClass('badge', 'tone-ok')
    expect(screen.getByText('PRESERVE').parentElement).toHaveTextContent('PRESERVEthe 8 existing drinks')
  })

  it('shows nothing before the parser has run', () => {
    const { container } = renderWithProviders(
      <TaskRequirements card={card({ requirements: [], preserve: [] })} />,
    )
    expect(container.querySelector('.task-card-requirements')).toBeNull()
    expect(container).not.toHaveTextContent('PRESERVE')
  })

  it('follows a running task through its phases from the loop’s events', () => {
    renderWithProviders(
      <PhaseStepper projectId={1} card={card({ status: 'running', type: 'mutation', title: null })} />,
    )
    expect(steps()).toEqual(['Parse:current', 'Plan:todo', 'Build:todo', 'Gates:todo', 'Snapshot:todo'])
    const events = useRuns.getState()
    act(() =>
      events.onEvent(1, {
        type: 'iteration.started',
        task: 1,
        iteration: 1,
        phase: 'plan',
        maxIterations: 9,
      }),
    )
    expect(steps().slice(0, 2)).toEqual(['Parse:done', 'Plan:current'])
    act(() =>
      events.onEvent(1, {
        type: 'iteration.started',
        task: 1,
        iteration: 2,
        phase: 'build',
        maxIterations: 9,
      }),
    )
    expect(screen.getByText('Build').closest('li')).toHaveAttribute('aria-current', 'step')
  })

  it('marks every phase of a complete task done, and where a failed one stopped', () => {
    const { unmount } = renderWithProviders(<PhaseStepper projectId={1} card={card()} />)
    expect(steps().every((s) => s.endsWith(':done'))).toBe(true)
    unmount()
    renderWithProviders(
      <PhaseStepper projectId={1} card={card({ status: 'failed', reason: 'gates', type: 'fresh' })} />,
    )
    expect(steps()).toEqual(['Parse:done', 'Plan:done', 'Build:done', 'Gates:failed', 'Snapshot:todo'])
  })

  it('shows a bug fix without a plan phase, finished or running', () => {
    const { unmount } = renderWithProviders(<PhaseStepper projectId={1} card={card({ type: 'bugfix' })} />)
    expect(steps()).toEqual(['Parse:done', 'Build:done', 'Gates:done', 'Snapshot:done'])
    unmount()
    renderWithProviders(
      <PhaseStepper
        projectId={1}
        card={card({ type: 'bugfix', status: 'running', lastIteration: { number: 1, phase: 'build' } })}
      />,
    )
    expect(steps()).toEqual(['Parse:done', 'Build:current', 'Gates:todo', 'Snapshot:todo'])
    expect(screen.getByText('Build')).toHaveAttribute('title', expect.stringMatching(/changes the files/))
  })

  it('says where a failed task stopped from its newest iteration, never a build it did not reach', () => {
    renderWithProviders(
      <PhaseStepper
        projectId={1}
        card={card({
          type: 'fresh',
          status: 'failed',
          reason: 'stall',
          iterations: 2,
          lastIteration: { number: 2, phase: 'plan' },
        })}
      />,
    )
    expect(steps()).toEqual(['Parse:done', 'Plan:failed', 'Build:todo', 'Gates:todo', 'Snapshot:todo'])
  })

  it('after a reload mid-task, places a running feature from its run’s rows', () => {
    renderWithProviders(
      <PhaseStepper
        projectId={1}
        card={card({ type: 'fresh', status: 'running', lastIteration: { number: 3, phase: 'build' } })}
      />,
    )
    expect(steps()).toEqual(['Parse:done', 'Plan:done', 'Build:current', 'Gates:todo', 'Snapshot:todo'])
  })
})
