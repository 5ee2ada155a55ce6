import { useId, useState, type FormEvent } from 'react'
import type { QueueView } from '../../../../shared/queue'
import { AppFieldError as FieldError } from './AppFieldError'
import { errorMessage } from '../../app/queries'
import { ActionButton, Button, toast, useSingleFlight } from '../../ui'
import { withoutCliHints } from './appText'
import { useQueueMutation } from './queries'

/** Issues found while working (seed 001): the INVESTIGATE stage takes them once every task is accepted. */
export function IssuesSection({ projectId, state }: { projectId: number; state: QueueView }) {
  const [desc, setDesc] = useState('')
  const add = useQueueMutation(projectId, 'queue.addIssue')
  const close = useQueueMutation(projectId, 'queue.closeIssue')
  const id = useId()
  const noSpec = state.spec === null ? 'Issues belong to a spec: add a first task (it sets one)' : null

  const adding = useSingleFlight(async () => {
    await add.mutateAsync({ desc })
    setDesc('')
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (noSpec || desc.trim() === '') return
    void adding.run()
  }

  return (
    <section className="queue-section" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`} className="queue-section-title">
        Issues
      </h3>
      {state.issues.length === 0 ? (
        <p className="muted queue-note">No open issues.</p>
      ) : (
        <ul className="queue-issues" aria-label="Issues">
          {state.issues.map((issue) => (
            <li key={issue.id} className="queue-issue" aria-label={issue.desc}>
              <span className="queue-issue-desc">{issue.desc}</span>
              <span className="mono muted">{issue.id}</span>
              <ActionButton
                size="sm"
                variant="ghost"
                disabledReason={close.isPending ? 'Closing…' : null}
                onAction={() =>
                  close
                    .mutateAsync({ id: issue.id })
                    .catch((err: unknown) =>
                      toast.error(`Could not close “${issue.desc}”: ${withoutCliHints(errorMessage(err))}`),
                    )
                }
              >
                Close issue
              </ActionButton>
            </li>
          ))}
        </ul>
      )}
      <form className="queue-issue-form" onSubmit={submit}>
        <label htmlFor={`${id}-new`} className="visually-hidden">
          New issue
        </label>
        <input
          id={`${id}-new`}
          value={desc}
          placeholder="Something found while working…"
          onChange={(e) => setDesc(e.target.value)}
        />
        <Button
          type="submit"
          size="sm"
          disabledReason={
            noSpec ??
            (add.isPending || adding.busy
              ? 'Adding…'
              : desc.trim() === ''
                ? 'Describe the issue first'
                : null)
          }
        >
          Add issue
        </Button>
      </form>
      <FieldError error={add.error} />
    </section>
  )
}
