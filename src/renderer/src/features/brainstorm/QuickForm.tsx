import { useState } from 'react'
import { quickFormFields, type QuickForm as QuickFormValues } from '../../../../shared/api/brainstorm'
import { Button } from '../../ui'

const fields: { key: (typeof quickFormFields)[number]; label: string; hint: string }[] = [
  { key: 'description', label: 'Description', hint: 'What you are building, in two or three sentences.' },
  { key: 'mustHaves', label: 'Must-haves', hint: 'Three to five things without which it has no value.' },
  { key: 'nonGoals', label: 'Non-goals', hint: 'What it will explicitly not do.' },
  { key: 'constraints', label: 'Constraints', hint: 'Time, money, technology, legal, platform.' },
  { key: 'success', label: 'Success outcomes', hint: 'Three to seven measurable outcomes in 90 days.' },
]

/**
 * Quick mode (seed 004 §5): one form instead of phases 1–5, then the documents and the review. `answered` are
 * the answers a quick session already holds (the host closed between two of them): shown, not asked again.
 */
export function QuickForm({
  answered = [],
  busy,
  onSubmit,
}: {
  answered?: string[]
  busy: string | null
  onSubmit: (form: QuickFormValues) => void
}) {
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(fields.map((f, i) => [f.key, answered[i] ?? ''])),
  )
  const missing = fields.find((f) => !values[f.key]!.trim())
  return (
    <form
      className="bs-quick"
      aria-label="Quick mode"
      onSubmit={(e) => {
        e.preventDefault()
        if (!missing && !busy) onSubmit(values as QuickFormValues)
      }}
    >
      {fields.map((f, i) => {
        const locked = i < answered.length
        return (
          <label key={f.key} className="bs-field">
            <span>{f.label}</span>
            <span className="muted bs-field-hint">{f.hint}</span>
            <textarea
              rows={f.key === 'description' ? 3 : 2}
              value={values[f.key]}
              readOnly={locked}
              onChange={(e) => setValues((v) => ({ ...v, [f.key]: e.target.value }))}
            />
          </label>
        )
      })}
      <div className="bs-actions">
        <Button
          type="submit"
          variant="primary"
          disabledReason={busy ?? (missing ? `Fill in “${missing.label}” first.` : null)}
        >
          Write the documents
        </Button>
      </div>
    </form>
  )
}
