import type { Preflight } from '../../shared/queue'
import type { QueueState } from './planFile'
import { currentSpec, taskRecords } from './records'

const CHOICES: Preflight['choices'] = [
  { key: 'c', choice: 'cancel', label: 'Cancel existing tasks and start fresh' },
  { key: 'a', choice: 'abort', label: 'Abort (keep current plan)' },
]

/**
 * Seed 001's pre-flight of `ralph plan <spec>`: pending or done tasks left from earlier work must not be
 * dropped without asking. Cancel removes them (history keeps them as cancelled); abort changes nothing.
 */
export function planPreflight(state: QueueState): Preflight {
  const unfinished = taskRecords(state).map((t) => ({
    status: t.rec.s === 'd' ? ('done' as const) : ('pending' as const),
    id: t.rec.id,
    name: t.rec.name,
  }))
  const fromSpec = currentSpec(state)
  if (unfinished.length === 0) return { needsChoice: false, fromSpec, unfinished, prompt: '', choices: [] }
  const specs = [...new Set(taskRecords(state).map((t) => t.rec.spec))]
  const from = specs.length === 1 ? `spec '${specs[0]}'` : `specs ${specs.map((s) => `'${s}'`).join(', ')}`
  const prompt = [
    `Found unfinished tasks from ${from}:`,
    ...unfinished.map((u) => `  - [${u.status}] ${u.id}: ${u.name}`),
    '',
    'What would you like to do?',
    ...CHOICES.map((c) => `  [${c.key}] ${c.label}`),
  ].join('\n')
  return { needsChoice: true, fromSpec, unfinished, prompt, choices: CHOICES }
}
