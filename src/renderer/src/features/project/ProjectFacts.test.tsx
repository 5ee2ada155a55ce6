import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { projectDetail } from '../../test/fixtures'
import { renderWithProviders } from '../../test/render'
import { ProjectFacts } from './ProjectFacts'

const state = (patch: Partial<ReturnType<typeof projectDetail>['state']>) => ({
  ...projectDetail().state,
  ...patch,
})

describe('ProjectFacts', () => {
  it('names no phase before the first task, and the loop’s phase after it', () => {
    const before = renderWithProviders(<ProjectFacts state={state({ phase: 'plan', taskCount: 0 })} />)
    expect(within(screen.getByLabelText('Project state')).queryByText('PLAN')).toBeNull()
    before.unmount()
    renderWithProviders(<ProjectFacts state={state({ phase: 'plan', taskCount: 1 })} />)
    expect(within(screen.getByLabelText('Project state')).getByText('PLAN')).toBeTruthy()
  })

  it('explains a fact’s label on hover', async () => {
    const user = userEvent.setup()
    renderWithProviders(<ProjectFacts state={state({ phase: 'build', taskCount: 2 })} />)
    await user.hover(screen.getByText('Phase'))
    expect((await screen.findAllByText(/PLAN while it works out what to change/)).length).toBeGreaterThan(0)
  })
})
