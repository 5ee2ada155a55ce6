import { Play, Square } from 'lucide-react'
import { useEffect, useRef, useState, type KeyboardEvent } from 'react'
import { formatLoopEvent } from '../../../../shared/formatLoopEvent'
import { errorMessage } from '../../app/queries'
import { shortcutLabel } from '../../app/shortcuts'
import { Button } from '../../ui'
import { useRunning, useStartTask, useStopTask } from './queries'
import { useRuns, type Outcome } from './runStore'

function outcomeText(outcome: Outcome): string {
  if (outcome.status === 'complete') return 'Task complete.'
  if (outcome.status === 'needs-clarification')
    return `Ralph asks: ${outcome.message} Answer in the box above.`
  return `Task ${outcome.status}: ${outcome.message}`
}

/**
 * Runs one task on the project and shows its progress live: every loop event, and the model's streamed text.
 * Stop aborts the in-flight call; the pre-task snapshot stays intact. (The chat of issue 12 replaces this.)
 */
export function TaskPanel({ projectId }: { projectId: number }) {
  const run = useRuns((s) => s.runs[projectId])
  const running = useRunning(projectId)
  const start = useStartTask(projectId)
  const stop = useStopTask(projectId)
  const [message, setMessage] = useState('')
  const log = useRef<HTMLOListElement>(null)

  useEffect(() => {
    log.current?.scrollTo({ top: log.current.scrollHeight })
  }, [run?.events.length, run?.liveText])

  const submit = () => {
    if (!message.trim() || running) return
    start.mutate(message.trim(), { onSuccess: () => setMessage('') })
  }
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault()
      submit()
    }
  }
  const lines = (run?.events ?? []).map(formatLoopEvent).filter((l): l is string => l !== null)

  return (
    <section className="card task-panel" aria-label="Run a task">
      <label htmlFor="task-message" className="card-title">
        What should Ralph do?
      </label>
      <textarea
        id="task-message"
        rows={3}
        value={message}
        placeholder="e.g. add a dark mode toggle to the header"
        onChange={(e) => setMessage(e.target.value)}
        onKeyDown={onKey}
        disabled={running}
      />
      <div className="task-actions">
        <span className="hint">
          <kbd>{shortcutLabel('Enter')}</kbd> to run
        </span>
        {running ? (
          <Button
            icon={<Square size={14} aria-hidden />}
            onClick={() => stop.mutate()}
            disabled={stop.isPending}
            data-testid="stop-task"
          >
            Stop
          </Button>
        ) : null}
        <Button
          variant="primary"
          icon={running ? null : <Play size={14} aria-hidden />}
          disabled={running || !message.trim()}
          onClick={submit}
        >
          {running ? 'Running…' : 'Run task'}
        </Button>
      </div>
      {start.error || stop.error ? (
        <p className="field-error" role="alert">
          {errorMessage(start.error ?? stop.error)}
        </p>
      ) : null}
      {lines.length || run?.liveText ? (
        <ol className="task-log" ref={log} aria-label="Task progress" data-testid="task-log">
          {lines.map((line, i) => (
            <li key={i}>{line}</li>
          ))}
          {run?.liveText ? <li className="live">{run.liveText}</li> : null}
        </ol>
      ) : null}
      {run?.outcome ? (
        <p
          className={run.outcome.status === 'complete' ? 'field-ok' : 'field-error'}
          data-testid="task-outcome"
        >
          {outcomeText(run.outcome)}
        </p>
      ) : null}
    </section>
  )
}
