import { useNow } from '../../ui/useNow'
import { useRuns } from '../../app/runStore'
import { formatDurationShort as formatDuration } from '../../../../shared/format'

/** The usage-limit wait a running task is in, if any: its newest limit.waiting with no limit.resumed after it. */
function useLimitWait(projectId: number, task: number): { resetAt: string; message: string } | null {
  return useRuns((s) => {
    const run = s.runs[projectId]
    if (!run || run.task !== task) return null
    for (let i = run.events.length - 1; i >= 0; i--) {
      const e = run.events[i]!
      if (e.type === 'limit.resumed' || e.type === 'iteration.started') return null
      if (e.type === 'limit.waiting') return e
    }
    return null
  })
}

/**
 * "Waiting for the usage limit" with the time it resets and a countdown: the provider said the subscription's
 * limit is reached, and the task resumes the same iteration by itself then (Stop still stops it).
 */
export function LimitWait({ projectId, task }: { projectId: number; task: number }) {
  const wait = useLimitWait(projectId, task)
  const now = useNow(wait !== null)
  if (!wait) return null
  const reset = new Date(wait.resetAt)
  return (
    <p className="task-card-limit" role="status" data-testid="limit-wait">
      Waiting for the usage limit: resumes at{' '}
      {reset.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })} (in{' '}
      {formatDuration(reset.getTime() - now)}). {wait.message}
    </p>
  )
}
