import { useEffect, useRef, useState, type KeyboardEvent } from 'react'
import { formatLoopEvent } from '../../../shared/formatLoopEvent'
import { useStudio } from '../state/store'
import { shortcutLabel } from '../useShortcuts'

/**
 * Runs one task on the project and shows its progress live: every loop event, and the model's streamed text.
 * Stop aborts the in-flight call; the pre-task snapshot stays intact.
 */
export function TaskPanel({ projectId }: { projectId: number }) {
  const run = useStudio((s) => s.runs[projectId])
  const startTask = useStudio((s) => s.startTask)
  const stopTask = useStudio((s) => s.stopTask)
  const refreshRunning = useStudio((s) => s.refreshRunning)
  const [message, setMessage] = useState('')
  const log = useRef<HTMLOListElement>(null)

  useEffect(() => {
    void refreshRunning(projectId)
  }, [projectId, refreshRunning])

  useEffect(() => {
    log.current?.scrollTo({ top: log.current.scrollHeight })
  }, [run?.events.length, run?.liveText])

  const running = run?.running ?? false
  const submit = async () => {
    if (!message.trim() || running) return
    if (await startTask(projectId, message.trim())) setMessage('')
  }
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault()
      void submit()
    }
  }
  const lines = (run?.events ?? []).map(formatLoopEvent).filter((l): l is string => l !== null)

  return (
    <section className="card task-panel" aria-label="Run a task">
      <label htmlFor="task-message">What should Ralph do?</label>
      <textarea
        id="task-message"
        rows={3}
        value={message}
        placeholder="e.g. add a dark mode toggle to the header"
        onChange={(e) => setMessage(e.target.value)}
        onKeyDown={onKey}
        disabled={running}
      />
      <div className="row end">
        <span className="hint">{shortcutLabel('Enter')} to run</span>
        {running ? (
          <button type="button" onClick={() => void stopTask(projectId)} data-testid="stop-task">
            Stop
          </button>
        ) : null}
        <button
          type="button"
          className="primary"
          disabled={running || !message.trim()}
          onClick={() => void submit()}
        >
          {running ? 'Running…' : 'Run task'}
        </button>
      </div>
      {run?.error ? (
        <p className="field-error" role="alert">
          {run.error}
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
          {run.outcome.status === 'complete'
            ? 'Task complete.'
            : run.outcome.status === 'needs-clarification'
              ? `Ralph asks: ${run.outcome.message} Answer in the box above.`
              : `Task ${run.outcome.status}: ${run.outcome.message}`}
        </p>
      ) : null}
    </section>
  )
}
