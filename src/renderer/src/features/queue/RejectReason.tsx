import { useId, useState, type FormEvent } from 'react'
import { Button, useSingleFlight } from '../../ui'

/**
 * Reject in one step (issue 37): the reason field inline with its Reject button; Enter submits. The reason is
 * required: it is the feedback the task's next attempt reads. `blocked` says why it cannot be used now.
 */
export function RejectReason({
  name,
  blocked = null,
  onReject,
}: {
  /** The task's name, for the field's accessible name. */
  name: string
  blocked?: string | null
  /** Rejects with the reason; the field empties once it resolves to anything but false (false: it failed). */
  onReject(reason: string): Promise<unknown>
}) {
  const [reason, setReason] = useState('')
  const id = useId()
  const flight = useSingleFlight(async () => {
    if ((await onReject(reason.trim())) !== false) setReason('')
  })
  const why = flight.busy
    ? 'Rejecting…'
    : (blocked ?? (reason.trim() === '' ? 'Say why first, in the field' : null))
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (!why) void flight.run()
  }
  return (
    <form className="queue-reject" onSubmit={submit}>
      <label className="visually-hidden" htmlFor={`${id}-reason`}>
        Why reject {name}?
      </label>
      <input
        id={`${id}-reason`}
        className="queue-reject-reason"
        type="text"
        maxLength={10_000}
        placeholder="Why reject it? (read by its next attempt)"
        value={reason}
        onChange={(e) => setReason(e.target.value)}
      />
      <Button
        type="submit"
        size="sm"
        variant="danger"
        disabledReason={why}
        aria-busy={flight.busy || undefined}
      >
        Reject
      </Button>
    </form>
  )
}
