import { FilePlus2, FileText } from 'lucide-react'
import { Badge, Button } from '../../ui'
import type { TaskForm } from './taskForm'

/** What the core said about the spec file the dialog points at (null while it is being read or cannot be). */
export interface SpecFileState {
  exists: boolean
  text: string | null
}

const PLACEHOLDER =
  '# What this work is for\n\nWhat the result must do and what done looks like. Every task in the queue belongs to this spec.'

/**
 * The task dialog's spec: a markdown file in the project that the queue's tasks implement. While the queue has
 * none, the path is typed here (a new file by default, which Add task creates with the text below); once it has
 * one, its text opens on demand ("Edit spec") and a change is saved with the task.
 */
export function SpecEditor({
  id,
  form,
  update,
  editablePath,
  file,
  reading,
  problem,
}: {
  id: string
  form: TaskForm
  update(patch: Partial<TaskForm>): void
  /** True while the queue has no spec: the user names the file. */
  editablePath: boolean
  file: SpecFileState | null
  reading: boolean
  problem: string | undefined
}) {
  const open = form.specOpen
  const isNew = file !== null && !file.exists
  const status = problem
    ? null
    : reading || file === null
      ? 'Looking for the file…'
      : isNew
        ? editablePath
          ? 'A new file: Add task creates it with the text below.'
          : 'The file is missing: saving the task creates it with the text below.'
        : 'Its text is below; a change is saved with the task.'
  return (
    <fieldset className="field queue-spec" aria-label="Spec">
      <legend className="queue-spec-legend">
        {isNew ? <FilePlus2 size={14} aria-hidden /> : <FileText size={14} aria-hidden />}
        {isNew ? 'New spec' : 'Spec'}
        {file && !problem ? (
          <Badge tone={isNew ? 'accent' : 'info'}>{isNew ? 'new file' : 'existing file'}</Badge>
        ) : null}
      </legend>
      {editablePath ? (
        <div className="field">
          <label htmlFor={`${id}-spec`}>Spec file</label>
          <input
            id={`${id}-spec`}
            value={form.spec}
            placeholder="specs/feature.md"
            spellCheck={false}
            aria-invalid={problem ? true : undefined}
            aria-describedby={`${id}-spec-hint`}
            onChange={(e) => update({ spec: e.target.value })}
          />
          <p id={`${id}-spec-hint`} className={problem ? 'field-error queue-inline-error' : 'hint'}>
            {problem ??
              `The queue has no spec yet: the markdown file (in the project) these tasks implement. ${status ?? ''}`}
          </p>
        </div>
      ) : (
        <div className="queue-spec-row">
          <span className="mono queue-spec-path" title="The spec every task of this queue belongs to">
            {form.spec}
          </span>
          <Button size="sm" variant="ghost" aria-expanded={open} onClick={() => update({ specOpen: !open })}>
            {open ? 'Hide spec' : 'Edit spec'}
          </Button>
        </div>
      )}
      {open && !problem ? (
        <div className="field">
          <label htmlFor={`${id}-spec-text`}>Spec text</label>
          <textarea
            id={`${id}-spec-text`}
            className="queue-spec-text"
            rows={editablePath ? 6 : 8}
            value={form.specText}
            placeholder={PLACEHOLDER}
            spellCheck
            aria-describedby={`${id}-spec-text-hint`}
            onChange={(e) => update({ specText: e.target.value, specDirty: true })}
          />
          <p id={`${id}-spec-text-hint`} className="hint">
            Markdown.{' '}
            {editablePath
              ? isNew && form.specText.trim() === ''
                ? 'Left empty, the file starts with the task’s name as its heading.'
                : null
              : status}
            {editablePath && form.specDirty && file?.exists && file.text !== form.specText ? (
              <span className="queue-warn"> Saving replaces the file’s text with this.</span>
            ) : null}
          </p>
        </div>
      ) : null}
    </fieldset>
  )
}
