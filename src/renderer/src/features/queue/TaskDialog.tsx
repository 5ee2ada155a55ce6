import { useId, useState, type FormEvent } from 'react'
import { priorities, type QueueView, type TaskView } from '../../../../shared/queue'
import { FieldError } from '../../app/FieldError'
import { Dialog, DialogContent, DialogFormActions } from '../../ui'
import { useQueueMutation } from './queries'
import { criteriaLines, depChoices, emptyForm, formOf, untaggedLines, type TaskForm } from './taskForm'

/**
 * Adds a task, or edits one (`task` given): name, notes, acceptance criteria one per line (DET: a command checks
 * it, LLM: a model judges it), dependencies by name, priority. While the queue has no spec, it asks for one.
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
        title={task ? `Edit ${task.id}` : 'Add task'}
        description={
          task ? undefined : (
            <>
              <code>ralph build</code> takes pending tasks in dependency order, then by priority, and verifies
              each one against its criteria.
            </>
          )
        }
      >
        {/* Mounted with the dialog's content, so each opening starts from a fresh form. */}
        <TaskFormBody projectId={projectId} state={state} task={task} onDone={() => onOpenChange(false)} />
      </DialogContent>
    </Dialog>
  )
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
  const [form, setForm] = useState<TaskForm>(() => (task ? formOf(task) : emptyForm()))
  const add = useQueueMutation(projectId, 'queue.addTask')
  const edit = useQueueMutation(projectId, 'queue.editTask')
  const save = task ? edit : add
  const id = useId()
  const needsSpec = task === null && state.spec === null

  const update = (patch: Partial<TaskForm>) => setForm((f) => ({ ...f, ...patch }))
  const untagged = untaggedLines(form.criteria)
  const choices = depChoices(state, task?.id ?? null)

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const fields = {
      name: form.name,
      notes: form.notes,
      accept: criteriaLines(form.criteria),
      deps: form.deps,
      priority: form.priority,
    }
    const done = { onSuccess: onDone }
    if (task) edit.mutate({ id: task.id, ...fields }, done)
    else add.mutate({ ...fields, ...(needsSpec ? { spec: form.spec } : {}) }, done)
  }

  return (
    <form className="queue-form" onSubmit={submit}>
      {needsSpec ? (
        <div className="field">
          <label htmlFor={`${id}-spec`}>Spec file</label>
          <input
            id={`${id}-spec`}
            value={form.spec}
            required
            placeholder="specs/feature.md"
            spellCheck={false}
            onChange={(e) => update({ spec: e.target.value })}
            aria-describedby={`${id}-spec-hint`}
          />
          <p id={`${id}-spec-hint`} className="hint">
            The queue has no spec yet: name the file (in the project) these tasks implement.
          </p>
        </div>
      ) : null}
      <div className="field">
        <label htmlFor={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          value={form.name}
          required
          placeholder="Add the flavor grid"
          onChange={(e) => update({ name: e.target.value })}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-notes`}>
          Notes <span className="optional">(optional)</span>
        </label>
        <textarea
          id={`${id}-notes`}
          rows={2}
          value={form.notes}
          onChange={(e) => update({ notes: e.target.value })}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-criteria`}>Acceptance criteria</label>
        <textarea
          id={`${id}-criteria`}
          rows={3}
          value={form.criteria}
          spellCheck={false}
          placeholder={'DET: npm test passes\nLLM: the grid shows every flavor'}
          onChange={(e) => update({ criteria: e.target.value })}
          aria-describedby={`${id}-criteria-hint`}
        />
        <p id={`${id}-criteria-hint`} className="hint">
          One per line. <code>DET:</code> a command checks it; <code>LLM:</code> a model judges it.
          {untagged.length > 0 ? (
            <span className="queue-warn">
              {' '}
              {untagged.length === 1 ? 'One line has' : `${untagged.length} lines have`} no tag and will count
              as LLM:.
            </span>
          ) : null}
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
              <span className="mono muted">{t.id}</span>
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
      <FieldError error={save.error} />
      <DialogFormActions
        variant="primary"
        disabledReason={save.isPending ? 'Saving…' : form.name.trim() === '' ? 'Give the task a name' : null}
      >
        {task ? 'Save' : 'Add task'}
      </DialogFormActions>
    </form>
  )
}
