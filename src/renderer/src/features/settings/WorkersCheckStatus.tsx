import { useEffect, useState } from 'react'
import type { WorkersCheck } from '../../../../shared/api/workers'
import { formatDuration } from '../../../../shared/format'
import { FieldError } from '../../app/FieldError'
import { Button } from '../../ui'

/** The running check (with its time so far and Stop), then its outcome in one sentence. */
export function WorkersCheckStatus({
  running,
  result,
  error,
  stopping,
  onStop,
}: {
  running: boolean
  result: WorkersCheck | null
  error: unknown
  stopping: boolean
  onStop(): void
}) {
  if (running) return <CheckRunning stopping={stopping} onStop={onStop} />
  if (error) return <FieldError error={error} />
  if (!result) return null
  return (
    <>
      <p
        className={`workers-check ${result.ok ? 'field-ok' : result.stopped ? 'hint' : 'field-error'}`}
        role="status"
        aria-label="Workers check"
      >
        {result.summary}
      </p>
      {result.advice ? <p className="hint workers-advice">{result.advice}</p> : null}
    </>
  )
}

/** Mounted while a check runs: what it does, its time so far, and Stop. */
function CheckRunning({ stopping, onStop }: { stopping: boolean; onStop(): void }) {
  const [since] = useState(() => Date.now())
  const [now, setNow] = useState(since)
  useEffect(() => {
    const tick = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(tick)
  }, [])
  return (
    <div className="workers-check" role="status" aria-label="Workers check">
      <progress aria-label="Checking the workers" />
      <span>
        Checking: reaching the backend, finding the image, running a no-op job… {formatDuration(now - since)}
      </span>
      <Button size="sm" variant="ghost" type="button" disabled={stopping} onClick={onStop}>
        Stop test
      </Button>
    </div>
  )
}
