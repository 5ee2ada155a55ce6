import type { LoopEvent } from '../../shared/loopEvents'
import type { JournalKind, JournalRow } from '../store'

/** The model's text kept per stretch (between two tool calls); a longer stretch keeps its start and says so. */
export const MAX_TEXT_CHARS = 20_000

interface Live {
  task: number
  runId: number | null
  iteration: number
  /** Tool calls seen in the iteration so far: the next one is number pos + 1, as the loop numbers them. */
  pos: number
  text: string
  omitted: number
}

export interface RunJournalSink {
  /** The run of a project's task, once its row exists (null before). */
  runOf(projectId: number, task: number): number | null
  write(runId: number, entry: JournalRow): void
}

/**
 * Keeps what the loop streams but does not store, so a task card shows it again after a reload: the model's text
 * (written once per stretch, not per token), each tool call's answer, phase changes, stalls, checkpoints, usage
 * limits and retries. Fed with the core's `loop.event`, `loop.delta` and `loop.finished`.
 */
export class RunJournal {
  private readonly live = new Map<number, Live>()

  constructor(private readonly sink: RunJournalSink) {}

  onDelta(projectId: number, task: number, iteration: number, text: string): void {
    const run = this.runFor(projectId, task)
    if (run.iteration !== iteration) this.moveTo(projectId, run, iteration)
    const room = MAX_TEXT_CHARS - run.text.length
    if (room >= text.length) run.text += text
    else {
      run.text += text.slice(0, Math.max(0, room))
      run.omitted += text.length - Math.max(0, room)
    }
  }

  onEvent(projectId: number, event: LoopEvent): void {
    if (event.type === 'task.started') {
      this.flush(projectId)
      this.live.delete(projectId)
    }
    const run = this.runFor(projectId, event.task)
    switch (event.type) {
      case 'iteration.started':
        this.moveTo(projectId, run, event.iteration ?? run.iteration)
        return
      case 'tool.called':
        this.flush(projectId)
        run.pos++
        this.add(projectId, run, 'tool', event.summary)
        return
      case 'phase.changed':
        this.add(projectId, run, 'phase', `Phase ${event.from} → ${event.to}: ${event.reason}`)
        return
      case 'stall.detected':
        this.add(projectId, run, 'stall', event.message)
        return
      case 'checkpoint.written': {
        const full = Math.round((100 * event.usedTokens) / event.windowTokens)
        const why = event.reason === 'budget' ? `context ${full}% full` : 'the provider refused the length'
        this.add(
          projectId,
          run,
          'checkpoint',
          `Checkpoint written (${why}); the next iteration continues from it.`,
        )
        return
      }
      case 'limit.waiting':
        this.add(projectId, run, 'limit', `Usage limit: waiting until ${event.resetAt}. ${event.message}`)
        return
      case 'llm.retry':
        this.add(
          projectId,
          run,
          'retry',
          `Retry ${event.attempt} in ${Math.round(event.delayMs / 1000)}s: ${event.reason}`,
        )
        return
      case 'task.completed':
      case 'task.failed':
      case 'clarification.needed':
        this.flush(projectId)
        return
    }
  }

  /**
   * The text streamed since the run's last written row, not written yet (it is, at the stretch's end): a page read
   * mid-stretch (a reload) shows it with the rest, then follows the stream.
   */
  unwritten(runId: number): JournalRow[] {
    for (const [projectId, run] of this.live) {
      if (this.resolve(projectId, run) === runId && run.text.trim())
        return [{ iteration: run.iteration, pos: run.pos, kind: 'text', text: run.text }]
    }
    return []
  }

  /** The task ended: what is left of its text is written. */
  onFinished(projectId: number): void {
    this.flush(projectId)
    this.live.delete(projectId)
  }

  private runFor(projectId: number, task: number): Live {
    let run = this.live.get(projectId)
    if (!run || run.task !== task) {
      run = { task, runId: null, iteration: 0, pos: 0, text: '', omitted: 0 }
      this.live.set(projectId, run)
    }
    return run
  }

  private moveTo(projectId: number, run: Live, iteration: number): void {
    this.flush(projectId)
    run.iteration = iteration
    run.pos = 0
  }

  private add(projectId: number, run: Live, kind: JournalKind, text: string): void {
    // A notice comes after the text that led to it.
    if (kind !== 'tool') this.flush(projectId)
    const runId = this.resolve(projectId, run)
    if (runId !== null) this.sink.write(runId, { iteration: run.iteration, pos: run.pos, kind, text })
  }

  private flush(projectId: number): void {
    const run = this.live.get(projectId)
    if (!run || (!run.text.trim() && !run.omitted)) {
      if (run) run.text = ''
      return
    }
    const text = run.omitted
      ? `${run.text}\n\n*(${run.omitted.toLocaleString('en')} more characters were streamed but not kept.)*`
      : run.text
    run.text = ''
    run.omitted = 0
    const runId = this.resolve(projectId, run)
    if (runId !== null) this.sink.write(runId, { iteration: run.iteration, pos: run.pos, kind: 'text', text })
  }

  private resolve(projectId: number, run: Live): number | null {
    if (run.runId === null) run.runId = this.sink.runOf(projectId, run.task)
    return run.runId
  }
}
