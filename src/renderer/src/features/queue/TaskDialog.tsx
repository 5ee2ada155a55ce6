import { useEffect, useId, useState, type FormEvent } from 'react'
import { priorities, specPathProblem, type QueueView, type TaskView } from '../../../../shared/queue'
import { AppFieldError as FieldError } from './AppFieldError'
import { Dialog, DialogContent, DialogFormActions, useSingleFlight } from '../../ui'
import { useDebounced } from '../../ui/useDebounced'
import { useQueueMutation, useSaveSpec, useSpecFile } from './queries'
import { SpecEditor } from './SpecEditor'
import {
  criteriaLines,
  depChoices,
  emptyForm,
  formOf,
  formProblems,
  untaggedLines,
  type TaskForm,
} from './taskForm'
import './taskDialog.css'

/**
 * Adds a task, or edits one (`task` given): name, notes, acceptance criteria one per line (DET: a command checks
 * it, LLM: a model judges it), dependencies by name, priority, and the spec they belong to — created here while
 * the queue has none, its text editable here. Problems show next to their field as the user types; the body
 * scrolls and the buttons stay in view.
 */
export function TaskDialog({
  projectId,
  state,
  task,
  open,
  onOpenChange,
}: {
  projectId: number
  state: QueueView
  task: TaskView | null
  open: boolean
  onOpenChange(open: boolean): void
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent
        title={task ? `Edit ${task.name}` : 'Add task'}
        description={
          task
            ? undefined
            : 'Build takes pending tasks in dependency order, then by priority, and checks each one against its criteria.'
        }
      >
        {/* Mounted with the dialog's content, so each opening starts from a fresh form. */}
        <TaskFormBody projectId={projectId} state={state} task={task} onDone={() => onOpenChange(false)} />
      </DialogContent>
    </Dialog>
  )
}

/** The spec file the dialog shows: the one typed (once it is a valid path and typing paused) or the queue's. */
function useDialogSpec(
  projectId: number,
  form: TaskForm,
  needsSpec: boolean,
  update: (p: Partial<TaskForm>) => void,
) {
  const typed = useDebounced(form.spec.trim(), 250)
  const path = needsSpec ? (specPathProblem(typed) ? null : typed) : form.spec || null
  const settled = !needsSpec || typed === form.spec.trim()
  const query = useSpecFile(projectId, path, path !== null && form.specOpen)
  const data = query.data && query.data.path !== null && settled ? query.data : null
  // The file's text fills the editor until the user types in it (then theirs is kept, whatever file is named).
  const loaded = data?.text ?? ''
  useEffect(() => {
    if (data && !form.specDirty && form.specText !== loaded) update({ specText: loaded })
  }, [data, loaded, form.specDirty, form.specText, update])
  return {
    file: data ? { exists: data.exists, text: data.text } : null,
    reading: path !== null && form.specOpen && (query.isFetching || !settled),
    error: form.specOpen ? query.error : null,
  }
}

function TaskFormBody({
  projectId,
  state,
  task,
  onDone,
}: {
  projectId: number
  state: QueueView
  task: TaskView | null
  onDone(): void
}) {
  const [form, setForm] = useState<TaskForm>(() =>
    task ? formOf(task) : { ...emptyForm(), ...(state.spec ? { spec: state.spec, specOpen: false } : {}) },
  )
  const add = useQueueMutation(projectId, 'queue.addTask')
  const edit = useQueueMutation(projectId, 'queue.editTask')
  const saveSpec = useSaveSpec(projectId)
  const save = task ? edit : add
  const id = useId()
  const needsSpec = task === null && state.spec === null

  const [update] = useState(() => (patch: Partial<TaskForm>) => setForm((f) => ({ ...f, ...patch })))
  const spec = useDialogSpec(projectId, form, needsSpec, update)
  const problems = formProblems(form, needsSpec)
  const untagged = untaggedLines(form.criteria)
  const choices = depChoices(state, task?.id ?? null)

  const flight = useSingleFlight(async () => {
    const specPath = form.spec.trim()
    const isNew = spec.file !== null && !spec.file.exists
    if (specPath && (form.specDirty || (needsSpec && isNew))) {
      const text = form.specText.trim() === '' && isNew ? `# ${form.name.trim()}\n` : form.specText
      await saveSpec.mutateAsync({ path: specPath, text })
    }
    const fields = {
      name: form.name,
      notes: form.notes,
      accept: criteriaLines(form.criteria),
      deps: form.deps,
      priority: form.priority,
    }
    // Only the spec's text changed: the task stays as it is (an edit would also end an escalation).
    const specOnly = task !== null && form.specDirty && sameTask(task, fields)
    if (task && !specOnly) await edit.mutateAsync({ id: task.id, ...fields })
    else if (!task) await add.mutateAsync({ ...fields, ...(needsSpec ? { spec: specPath } : {}) })
    onDone()
  })
  const blocked =
    flight.busy || save.isPending || saveSpec.isPending
      ? 'Saving…'
      : form.name.trim() === ''
        ? 'Give the task a name'
        : (problems.spec ??
          problems.name ??
          problems.notes ??
          problems.criteria ??
          (needsSpec && spec.reading ? 'Looking for the spec file…' : null))

  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (!blocked) void flight.run()
  }

  return (
    <form className="queue-form queue-task-form" onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          value={form.name}
          required
          placeholder="Add the flavor grid"
          aria-invalid={problems.name ? true : undefined}
          aria-describedby={problems.name ? `${id}-name-error` : undefined}
          onChange={(e) => update({ name: e.target.value, nameTouched: true })}
          onBlur={() => update({ nameTouched: true })}
        />
        <InlineError id={`${id}-name-error`} problem={problems.name} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-notes`}>
          Notes <span className="optional">(optional)</span>
        </label>
        <textarea
          id={`${id}-notes`}
          rows={2}
          value={form.notes}
          aria-invalid={problems.notes ? true : undefined}
          aria-describedby={problems.notes ? `${id}-notes-error` : undefined}
          onChange={(e) => update({ notes: e.target.value })}
        />
        <InlineError id={`${id}-notes-error`} problem={problems.notes} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-criteria`}>Acceptance criteria</label>
        <textarea
          id={`${id}-criteria`}
          rows={3}
          value={form.criteria}
          spellCheck={false}
          placeholder={'DET: `npm test`\nLLM: the grid shows every flavor'}
          aria-invalid={problems.criteria ? true : undefined}
          onChange={(e) => update({ criteria: e.target.value })}
          aria-describedby={`${id}-criteria-hint`}
        />
        <p
          id={`${id}-criteria-hint`}
          className={problems.criteria ? 'field-error queue-inline-error' : 'hint'}
        >
          {problems.criteria ?? (
            <>
              One per line. <code>DET:</code> a command in backticks checks it (it passes when the command
              exits 0); <code>LLM:</code> a model judges it.
              {untagged.length > 0 ? (
                <span className="queue-warn">
                  {' '}
                  {untagged.length === 1 ? 'One line has' : `${untagged.length} lines have`} no tag and will
                  count as LLM:.
                </span>
              ) : null}
            </>
          )}
        </p>
      </div>
      <fieldset className="field queue-deps">
        <legend>
          Depends on <span className="optional">(optional)</span>
        </legend>
        {choices.length === 0 ? (
          <p className="hint">No other tasks in the queue yet.</p>
        ) : (
          choices.map((t) => (
            <label key={t.id} className="queue-dep-choice">
              <input
                type="checkbox"
                checked={form.deps.includes(t.id)}
                onChange={(e) =>
                  update({
                    deps: e.target.checked ? [...form.deps, t.id] : form.deps.filter((d) => d !== t.id),
                  })
                }
              />
              <span>{t.name}</span>
            </label>
          ))
        )}
      </fieldset>
      <div className="field">
        <label htmlFor={`${id}-priority`}>Priority</label>
        <select
          id={`${id}-priority`}
          value={form.priority}
          onChange={(e) => update({ priority: e.target.value as TaskForm['priority'] })}
        >
          {priorities.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </div>
      {form.spec || needsSpec ? (
        <SpecEditor
          id={id}
          form={form}
          update={update}
          editablePath={needsSpec}
          file={spec.file}
          reading={spec.reading}
          problem={problems.spec}
        />
      ) : null}
      <div className="queue-dialog-footer">
        <FieldError error={saveSpec.error ?? save.error ?? spec.error} />
        <DialogFormActions variant="primary" disabledReason={blocked}>
          {task ? 'Save' : 'Add task'}
        </DialogFormActions>
      </div>
    </form>
  )
}

/** Whether the form's fields say what the task already says. */
function sameTask(
  task: TaskView,
  fields: { name: string; notes: string; accept: string[]; deps: string[]; priority: TaskView['priority'] },
): boolean {
  const was = formOf(task)
  return (
    fields.name.trim() === was.name &&
    fields.notes.trim() === was.notes.trim() &&
    JSON.stringify(fields.accept) === JSON.stringify(criteriaLines(was.criteria)) &&
    JSON.stringify([...fields.deps].sort()) === JSON.stringify([...was.deps].sort()) &&
    fields.priority === was.priority
  )
}

/** A field's problem, right under it, announced as it appears. */
function InlineError({ id, problem }: { id: string; problem: string | undefined }) {
  if (!problem) return null
  return (
    <p id={id} className="field-error queue-inline-error" role="alert">
      {problem}
    </p>
  )
}
