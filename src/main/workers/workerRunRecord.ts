// A worker's task in the user's project's store (issue #39): the run row, its iterations, tool calls, gate results,
// usage and receipt, written here from the events the worker streams, as a local lane's loop writes them (its
// LoopRecorder) — so the chat shows the task's card with its lane, whatever machine ran it. The worker's own store
// stays in its container; the usage rows are one per model from the receipt the task ended with (the events carry
// no per-call usage).
import type { LoopEvent, TaskReceipt } from '../../shared/loopEvents'
import type { RunsRepo } from '../store'

export interface WorkerRunPlace {
  runs: RunsRepo
  projectId: number | null
  /** The user's project (the run row is its, as a local lane's). */
  projectPath: string
  lane: number
}

export class WorkerRunRecord {
  runId: number | null = null
  private task = 0
  private iterationId: number | null = null
  private seq = 0
  private ended = false

  constructor(private readonly place: WorkerRunPlace) {}

  /** One event of the worker's stream. */
  take(event: LoopEvent): void {
    const { runs } = this.place
    if (event.type === 'task.started') {
      if (this.runId !== null) return
      this.task = event.task
      this.runId = runs.startRun({
        projectId: this.place.projectId,
        projectPath: this.place.projectPath,
        task: event.task,
        message: event.message,
        lane: this.place.lane,
      })
      return
    }
    const runId = this.runId
    if (runId === null) return
    switch (event.type) {
      case 'task.parsed':
        runs.updateRun(runId, { type: event.parsed.type, title: event.parsed.title })
        return
      case 'iteration.started':
        if (event.iteration === undefined) return
        this.iterationId = runs.startIteration(runId, event.iteration, event.phase, 0)
        this.seq = 0
        runs.updateRun(runId, { iterations: event.iteration })
        return
      case 'tool.called':
        if (this.iterationId === null) return
        runs.recordToolCall(this.iterationId, this.seq++, {
          name: event.name,
          argsJson: JSON.stringify(event.args),
          ok: event.ok,
          resultBytes: 0,
          durationMs: event.durationMs,
          error: event.ok ? null : event.summary,
        })
        return
      case 'gate.result':
        runs.recordGate(runId, event.iteration ?? 0, event.attempt ?? 1, event)
        return
      case 'clarification.needed':
        runs.updateRun(runId, { status: 'waiting', detail: event.question })
        return
      case 'task.completed':
        runs.updateRun(runId, { status: 'complete', endedAt: Date.now(), iterations: event.iterations })
        this.receipt(event.receipt)
        this.ended = true
        return
      case 'task.failed':
        runs.updateRun(runId, {
          status: event.reason === 'stopped' || event.reason === 'interrupted' ? event.reason : 'failed',
          reason: event.reason,
          detail: event.message,
          endedAt: Date.now(),
          iterations: event.iterations,
        })
        if (event.receipt) this.receipt(event.receipt)
        this.ended = true
        return
      default:
        return
    }
  }

  /**
   * The worker's attempt ended without a result the build takes: a fault (it died, or its result was refused — the
   * row fails even if the worker said complete: nothing of it was merged), or a Stop before the task's end.
   */
  closeUnfinished(status: 'failed' | 'stopped', why: string): void {
    if (this.runId === null || (status === 'stopped' && this.ended)) return
    this.place.runs.updateRun(this.runId, {
      status,
      reason: status === 'stopped' ? 'stopped' : 'error',
      detail: why,
      endedAt: Date.now(),
    })
    this.ended = true
  }

  private receipt(receipt: TaskReceipt | undefined): void {
    if (!receipt || this.runId === null) return
    for (const m of receipt.models ?? [])
      this.place.runs.recordUsage({
        runId: this.runId,
        task: this.task,
        iteration: null,
        purpose: 'iteration',
        provider: m.provider,
        model: m.model,
        inputTokens: m.inputTokens,
        outputTokens: m.outputTokens,
        durationMs: 0,
        costUsd: m.costUsd,
      })
    this.place.runs.saveReceipt(this.runId, receipt)
  }
}
