import { useId, useState, type FormEvent } from 'react'
import type { TaskView } from '../../../../shared/queue'
import { AppFieldError as FieldError } from './AppFieldError'
import { Dialog, DialogContent, DialogFormActions, useSingleFlight } from '../../ui'
import { useQueueMutation } from './queries'

/** Rejects a done task with a reason (required): a tombstone, and the task is pending again with the reason. */
export function RejectDialog({
  projectId,
  task,
  onClose,
}: {
  projectId: number
  task: TaskView | null
  onClose(): void
}) {
  return (
    <Dialog open={task !== null} onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogContent
        title={task ? `Reject ${task.name}` : 'Reject'}
        description="The task goes back to pending with your reason as feedback for its next attempt; the history keeps the rejection."
      >
        {task ? <RejectForm projectId={projectId} task={task} onClose={onClose} /> : null}
      </DialogContent>
    </Dialog>
  )
}

/** Mounted with the dialog's content, so each opening starts with an empty reason. */
function RejectForm({ projectId, task, onClose }: { projectId: number; task: TaskView; onClose(): void }) {
  const [reason, setReason] = useState('')
  const reject = useQueueMutation(projectId, 'queue.reject')
  const id = useId()

  const flight = useSingleFlight(async () => {
    await reject.mutateAsync({ id: task.id, reason })
    onClose()
  })
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (reason.trim() !== '') void flight.run()
  }

  return (
    <form className="queue-form" onSubmit={submit}>
      <div className="field">
        <label htmlFor={`${id}-reason`}>Reason</label>
        <textarea
          id={`${id}-reason`}
          rows={3}
          required
          value={reason}
          placeholder="The grid shows 7 flavors, not 8"
          onChange={(e) => setReason(e.target.value)}
        />
      </div>
      <FieldError error={reject.error} />
      <DialogFormActions
        variant="danger"
        disabledReason={
          reject.isPending || flight.busy
            ? 'Rejecting…'
            : reason.trim() === ''
              ? 'Say why the task is rejected'
              : null
        }
      >
        Reject
      </DialogFormActions>
    </form>
  )
}
