import { Check } from 'lucide-react'
import type { BrainstormPhase } from '../../../../shared/brainstorm'
import { cx } from '../../ui'
import { currentStep, quickSkips, steps } from './phases'

/** The seven phases; the current one is aria-current="step", quick mode's skipped ones are struck through. */
export function Stepper({ phase, mode }: { phase: BrainstormPhase; mode: 'full' | 'quick' }) {
  const current = currentStep(phase)
  return (
    <ol className="bs-stepper" aria-label="Brainstorm phases">
      {steps.map((step, i) => {
        const skipped = mode === 'quick' && quickSkips.includes(step.phase)
        const done = current === null || (i < current && !skipped)
        const state = i === current ? 'current' : skipped ? 'skipped' : done ? 'done' : 'todo'
        return (
          <li
            key={step.phase}
            aria-label={step.name}
            aria-current={i === current ? 'step' : undefined}
            className={cx('bs-step', `bs-step-${state}`)}
            title={skipped ? 'Quick mode skips this phase' : undefined}
          >
            <span className="bs-step-dot" aria-hidden>
              {state === 'done' ? <Check size={12} /> : i + 1}
            </span>
            <span className="bs-step-name">{step.name}</span>
          </li>
        )
      })}
    </ol>
  )
}
