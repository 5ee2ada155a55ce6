import type { Priority, QueueView, TaskView } from '../../../../shared/queue'

/** What the add / edit dialog holds: criteria as text, one per line, as `ralph task add --accept` takes them. */
export interface TaskForm {
  name: string
  notes: string
  criteria: string
  deps: string[]
  priority: Priority
  spec: string
}

export const emptyForm = (): TaskForm => ({
  name: '',
  notes: '',
  criteria: '',
  deps: [],
  priority: 'medium',
  spec: '',
})

/** A task back as the form shows it; untagged criteria stay untagged (the core warns about them). */
export const formOf = (task: TaskView): TaskForm => ({
  name: task.name,
  notes: task.notes ?? '',
  criteria: task.accept.map((c) => (c.tagged ? `${c.kind}: ${c.text}` : c.text)).join('\n'),
  deps: [...task.deps],
  priority: task.priority,
  spec: '',
})

export const criteriaLines = (text: string): string[] =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '')

/** Lines the core will count as LLM: with a warning, so the dialog can say so before saving. */
export const untaggedLines = (text: string): string[] =>
  criteriaLines(text).filter((l) => !/^(?:[-*+]|\d+[.)])?\s*(DET|LLM)\s*:/i.test(l))

/** The tasks a task may depend on: every other task in the file, in file order. */
export const depChoices = (state: QueueView, self: string | null): TaskView[] =>
  state.tasks.filter((t) => t.id !== self)

/** A dependency by name; one that left the file was accepted (a met dependency). */
export function depName(state: QueueView, id: string): string {
  return state.tasks.find((t) => t.id === id)?.name ?? `${id} (accepted)`
}
