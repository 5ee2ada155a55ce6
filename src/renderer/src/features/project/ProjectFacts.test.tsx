import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { projectDetail } from '../../test/fixtures'
import { renderWithProviders } from '../../test/render'
import { ProjectDetails, ProjectFacts } from './ProjectFacts'

const state = (patch: Partial<ReturnType<typeof projectDetail>['state']>) => ({
  ...projectDetail().state,
  ...patch,
})

describe('ProjectFacts', () => {
  it('names the phase only while a task runs, and the last task as its card does', () => {
    const ended = state({
      phase: 'build',
      taskCount: 5,
      lastTask: { task: 2, title: 'Footer', status: 'failed' },
    })
    const before = renderWithProviders(<ProjectFacts state={ended} taskRunning={false} />)
    const facts = () => screen.getByLabelText('Project state')
    expect(within(facts()).queryByText('BUILD')).toBeNull()
    expect(within(facts()).getByText('Task 2: Footer · Failed')).toBeTruthy()
    // Never the attempt counter.
    expect(facts().textContent).not.toContain('5')
    before.unmount()
    renderWithProviders(<ProjectFacts state={state({ phase: 'plan', taskCount: 1 })} taskRunning />)
    expect(within(facts()).getByText('PLAN')).toBeTruthy()
  })

  it('sits behind one button; its labels explain themselves in words and are no tab stops', async () => {
    const user = userEvent.setup()
    renderWithProviders(
      <ProjectDetails state={state({ phase: 'build', taskCount: 2 })} taskRunning={false} />,
    )
    await user.click(screen.getByRole('button', { name: 'Project details' }))
    const dialog = await screen.findByRole('dialog', { name: 'Project details' })
    expect(within(dialog).getByText(/PLAN while it works out what to change/)).toBeTruthy()
    // The dialog's only tab stop is its Close button: a label is read, not focused.
    const focusable = dialog.querySelectorAll('button, [href], input, [tabindex]:not([tabindex="-1"])')
    expect([...focusable].map((el) => el.getAttribute('aria-label') ?? el.textContent)).toEqual(['Close'])
  })
})
