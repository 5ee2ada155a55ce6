import type { BrainstormPending } from '../../shared/brainstorm'

type Choice = Extract<BrainstormPending, { kind: 'choice' }>

const loose = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()

/**
 * A closed choice answered by number (1-based), by value, or by label (its whole text or the part before a
 * colon, "Update" for "Update: replace the file"). Anything else is null: the caller asks again (Conductor #105).
 */
export function resolveChoice(choice: Choice, answer: string): string | null {
  const a = loose(answer)
  if (!a) return null
  if (/^\d+$/.test(a)) return choice.options[Number(a) - 1]?.value ?? null
  const hit = choice.options.find(
    (o) => loose(o.value) === a || loose(o.label) === a || loose(o.label.split(':')[0]!) === a,
  )
  return hit?.value ?? null
}

export function choiceText(choice: Choice): string {
  const lines = choice.options.map(
    (o, i) => `  ${i + 1}. ${o.label}${o.value === choice.default ? ' (default)' : ''}`,
  )
  return `${choice.text}\n${lines.join('\n')}`
}
