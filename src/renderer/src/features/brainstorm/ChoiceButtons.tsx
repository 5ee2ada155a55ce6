import type { BrainstormPending } from '../../../../shared/brainstorm'
import { Button } from '../../ui'

type Choice = Extract<BrainstormPending, { kind: 'choice' }>

/** "Update: replace VISION.md" → the button "Update" with "replace VISION.md" as its description. */
export function splitLabel(label: string): { name: string; detail: string | null } {
  const at = label.indexOf(':')
  return at < 0
    ? { name: label, detail: null }
    : { name: label.slice(0, at), detail: label.slice(at + 1).trim() }
}

/** A closed question as buttons (never "type A or B"): the default option is the primary one. */
export function ChoiceButtons({
  choice,
  busy,
  onChoose,
  hide = [],
}: {
  choice: Choice
  busy: string | null
  onChoose: (value: string) => void
  hide?: string[]
}) {
  return (
    <div className="bs-choices" role="group" aria-label={choice.text.split('\n')[0]}>
      {choice.options
        .filter((o) => !hide.includes(o.value))
        .map((o) => {
          const { name, detail } = splitLabel(o.label)
          return (
            <Button
              key={o.value}
              variant={o.value === choice.default ? 'primary' : 'secondary'}
              disabledReason={busy}
              onClick={() => onChoose(o.value)}
              title={detail ?? undefined}
            >
              {name}
            </Button>
          )
        })}
    </div>
  )
}
