import { specPathProblem, type Priority, type QueueView, type TaskView } from '../../../../shared/queue'

/** What the add / edit dialog holds: criteria as text, one per line, as `ralph task add --accept` takes them. */
export interface TaskForm {
  name: string
  notes: string
  criteria: string
  deps: string[]
  priority: Priority
  /** The spec file's path: typed while the queue has none (a new file by default). */
  spec: string
  /** The spec's markdown as the editor holds it; saved with the task when `specDirty` or the file is new. */
  specText: string
  specDirty: boolean
  /** The spec's text is shown (always while the queue has no spec; on "Edit spec" otherwise). */
  specOpen: boolean
  /** The name field was typed in or left: its problem shows from then on. */
  nameTouched: boolean
}

/** Where a first task's spec goes unless the user names another file: a new markdown file the dialog creates. */
export const DEFAULT_SPEC = 'specs/tasks.md'

const NAME_MAX = 1_000
const LINE_MAX = 10_000

/** What is wrong with each field, in words shown next to it as the user types; an empty object when all is well. */
export function formProblems(
  form: TaskForm,
  needsSpec: boolean,
): { name?: string; notes?: string; criteria?: string; spec?: string } {
  const problems: { name?: string; notes?: string; criteria?: string; spec?: string } = {}
  if (form.nameTouched && form.name.trim() === '') problems.name = 'Give the task a name.'
  else if (form.name.length > NAME_MAX) problems.name = `Keep the name under ${NAME_MAX} characters.`
  if (form.notes.length > LINE_MAX) problems.notes = `Keep the notes under ${LINE_MAX} characters.`
  const long = criteriaLines(form.criteria).findIndex((l) => l.length > LINE_MAX)
  if (long >= 0) problems.criteria = `Line ${long + 1} is longer than ${LINE_MAX} characters.`
  if (needsSpec) {
    const spec = specPathProblem(form.spec)
    if (spec) problems.spec = spec
  }
  return problems
}

export const emptyForm = (): TaskForm => ({
  name: '',
  notes: '',
  criteria: '',
  deps: [],
  priority: 'medium',
  spec: DEFAULT_SPEC,
  specText: '',
  specDirty: false,
  specOpen: true,
  nameTouched: false,
})

/** A task back as the form shows it; untagged criteria stay untagged (the core warns about them). */
export const formOf = (task: TaskView): TaskForm => ({
  name: task.name,
  notes: task.notes ?? '',
  criteria: task.accept.map((c) => (c.tagged ? `${c.kind}: ${c.text}` : c.text)).join('\n'),
  deps: [...task.deps],
  priority: task.priority,
  spec: task.spec,
  specText: '',
  specDirty: false,
  specOpen: false,
  nameTouched: true,
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
