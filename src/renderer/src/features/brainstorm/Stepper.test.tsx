import { render, screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { Stepper } from './Stepper'

const items = () => within(screen.getByRole('list', { name: 'Brainstorm phases' })).getAllByRole('listitem')
const current = () => items().filter((li) => li.getAttribute('aria-current') === 'step')

describe('stepper', () => {
  it('lists the seven phases by name and marks the current one as the step', () => {
    render(<Stepper phase="organize" mode="full" />)
    expect(items().map((li) => li.getAttribute('aria-label'))).toEqual([
      'Setup',
      'Technique',
      'Ideate',
      'Organize',
      'Crystallize',
      'Output',
      'Review',
    ])
    expect(current().map((li) => li.getAttribute('aria-label'))).toEqual(['Organize'])
    expect(items()[2]).toHaveClass('bs-step-done')
    expect(items()[5]).toHaveClass('bs-step-todo')
  })

  it('shows quick mode at Setup with the four middle phases skipped, and no current step when done', () => {
    const { rerender } = render(<Stepper phase="quick" mode="quick" />)
    expect(current().map((li) => li.getAttribute('aria-label'))).toEqual(['Setup'])
    expect(items().filter((li) => li.classList.contains('bs-step-skipped'))).toHaveLength(4)
    rerender(<Stepper phase="output" mode="quick" />)
    expect(current().map((li) => li.getAttribute('aria-label'))).toEqual(['Output'])
    expect(items()[0]).toHaveClass('bs-step-done')
    rerender(<Stepper phase="done" mode="full" />)
    expect(current()).toHaveLength(0)
    expect(items().every((li) => li.classList.contains('bs-step-done'))).toBe(true)
  })
})
