import type { LoopEvent, TaskReceipt } from '../../shared/loopEvents'
import type { Checkpoint } from './checkpoint'
import type { GateResult } from './gates'
import type { ToolCallRecord } from './iteration'
import type { RunsRepo, UsageRecord } from '../store'
import type { FailReason } from './decide'

/** Long strings (file contents) are clipped in events; the store keeps the full arguments. */
export function clipStrings(value: unknown, max = 2000): unknown {
  if (typeof value === 'string')
    return value.length > max ? `${value.slice(0, max)}… (${value.length} characters)` : value
  if (Array.isArray(value)) return value.map((v) => clipStrings(v, max))
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clipStrings(v, max)]))
  }
  return value
}

/**
 * The one place where the loop's progress becomes SQLite rows and events: each method writes what the store
 * keeps (runs, iterations, tool calls, gate results, usage, checkpoints, limit waits, receipts) and then emits the
 * matching LoopEvent, so a row and its event never disagree and the loop itself only decides and acts.
 */
export class LoopRecorder {
  task = 0
  runId = 0

  constructor(
    private readonly runs: RunsRepo,
    private readonly emitEvent: (event: LoopEvent) => void,
  ) {}

  /** An event with no row of its own (task.started, snapshot.created, phase.changed, stall.detected …). */
  emit(event: LoopEvent): void {
    this.emitEvent(event)
  }

  runStarted(input: Parameters<RunsRepo['startRun']>[0]): void {
    this.task = input.task
    this.runId = this.runs.startRun(input)
  }

  /** Continues an existing run row (an answered question, a resumed interruption). */
  runContinued(task: number, runId: number, patch: Parameters<RunsRepo['updateRun']>[1]): void {
    this.task = task
    this.runId = runId
    this.runs.updateRun(runId, patch)
  }

  runUpdated(patch: Parameters<RunsRepo['updateRun']>[1]): void {
    this.runs.updateRun(this.runId, patch)
  }

  /** Models whose cost the provider reported (no column keeps the source yet): their receipt line says so. */
  private readonly billedByProvider = new Set<string>()

  usage(entry: Omit<UsageRecord, 'runId' | 'task'>): void {
    this.runs.recordUsage({ ...entry, runId: this.runId, task: this.task })
    if (entry.costSource === 'provider') this.billedByProvider.add(`${entry.provider}\u0000${entry.model}`)
  }

  iterationStarted(iteration: number, phase: string, promptTokensEstimate: number): number {
    return this.runs.startIteration(this.runId, iteration, phase, promptTokensEstimate)
  }

  iterationEnded(
    iterationId: number,
    iteration: number,
    outcome: { signature: string; toolCalls: number; outcome: string },
  ): void {
    this.runs.endIteration(iterationId, outcome)
    this.runs.updateRun(this.runId, { iterations: iteration })
  }

  toolCalled(iterationId: number, iteration: number, seq: number, call: ToolCallRecord): void {
    this.runs.recordToolCall(iterationId, seq, {
      name: call.name,
      argsJson: call.canonicalArgs,
      ok: call.ok,
      resultBytes: Buffer.byteLength(call.output),
      durationMs: call.durationMs,
      error: call.ok ? null : call.output.slice(0, 500),
    })
    this.emit({
      type: 'tool.called',
      task: this.task,
      iteration,
      name: call.name,
      args: clipStrings(call.args),
      ok: call.ok,
      summary: call.output.split('\n')[0]!.slice(0, 200),
      durationMs: Math.round(call.durationMs),
      ...(call.outsideSnapshot ? { outsideSnapshot: true } : {}),
    })
  }

  gatesRan(iteration: number, attempt: number, results: readonly GateResult[]): void {
    for (const r of results) {
      this.runs.recordGate(this.runId, iteration, attempt, r)
      this.emit({
        type: 'gate.result',
        task: this.task,
        iteration,
        gate: r.gate,
        severity: r.severity,
        message: r.message,
        attempt,
      })
    }
  }

  checkpointWritten(iteration: number, checkpoint: Checkpoint): void {
    this.runs.recordCheckpoint(this.runId, { iteration, ...checkpoint })
    this.emit({
      type: 'checkpoint.written',
      task: this.task,
      iteration,
      reason: checkpoint.reason,
      by: checkpoint.by,
      usedTokens: checkpoint.usedTokens,
      windowTokens: checkpoint.windowTokens,
      text: checkpoint.text,
    })
  }

  limitWaitStarted(
    iteration: number,
    limit: { resetAt: number; waitMs: number; message: string },
    started: number,
  ): number {
    const waitId = this.runs.startLimitWait(this.runId, iteration, limit.resetAt, started)
    this.emit({
      type: 'limit.waiting',
      task: this.task,
      iteration,
      resetAt: new Date(limit.resetAt).toISOString(),
      waitMs: limit.waitMs,
      message: limit.message,
    })
    return waitId
  }

  limitWaitCancelled(waitId: number): void {
    this.runs.endLimitWait(waitId, 'cancelled')
  }

  limitWaitEnded(waitId: number, iteration: number, waitedMs: number): void {
    this.runs.endLimitWait(waitId, 'resumed')
    this.emit({ type: 'limit.resumed', task: this.task, iteration, waitedMs })
  }

  waitingForAnswer(question: string, options: readonly string[] = []): void {
    this.runs.updateRun(this.runId, { status: 'waiting', detail: question })
    this.emit({
      type: 'clarification.needed',
      task: this.task,
      question,
      ...(options.length ? { options: [...options] } : {}),
    })
  }

  completed(iteration: number, summary: string, postTag: string): TaskReceipt {
    this.runs.updateRun(this.runId, { status: 'complete', endedAt: Date.now(), iterations: iteration })
    const receipt = this.receipt(iteration)
    this.emit({
      type: 'task.completed',
      task: this.task,
      iteration,
      summary,
      iterations: iteration,
      postTag,
      costUsd: receipt.costUsd,
      receipt,
    })
    return receipt
  }

  failed(
    iteration: number,
    reason: FailReason,
    message: string,
    rolledBackTo: string | null,
  ): TaskReceipt | undefined {
    this.runs.updateRun(this.runId, {
      status: reason === 'stopped' || reason === 'interrupted' ? reason : 'failed',
      reason,
      detail: message,
      endedAt: Date.now(),
      iterations: iteration,
    })
    const receipt = this.runId ? this.receipt(iteration) : undefined
    this.emit({
      type: 'task.failed',
      task: this.task,
      ...(iteration ? { iteration } : {}),
      reason,
      message,
      iterations: iteration,
      rolledBackTo,
      ...(receipt ? { receipt } : {}),
    })
    return receipt
  }

  cost(): number {
    return this.runId ? this.runs.costForRun(this.runId).usd : 0
  }

  /** Sums the run's recorded calls, checkpoints and waits, and keeps the result with the run. */
  private receipt(iterations: number): TaskReceipt {
    const summed = this.runs.receiptFor(this.runId, iterations)
    const receipt = summed.models
      ? {
          ...summed,
          models: summed.models.map((m) => ({
            ...m,
            costSource: this.billedByProvider.has(`${m.provider}\u0000${m.model}`)
              ? ('provider' as const)
              : ('catalog' as const),
          })),
        }
      : summed
    this.runs.saveReceipt(this.runId, receipt)
    return receipt
  }
}
