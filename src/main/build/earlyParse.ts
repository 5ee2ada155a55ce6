// A lane's first model call, started before its lane exists (issue #38). A task's parse reads only the request and
// what the project holds at the lane's base, so a lanes build starts it as the task starts, and the lane's loop takes
// its answer instead of asking the model itself: the lane's checkout and the task's start-up in it (a second or more
// for four lanes of a large project) happen while the model answers.
import { isAppError } from '../../shared/errors'
import type { UsageEntry } from '../llm'
import type { ParseAhead } from '../loop'
import { parseTask, type ParseTaskInput, type ParseTaskResult } from '../tasks'
import { noteFailure, type Logger } from '../workspace'

export class EarlyParse implements ParseAhead {
  /** Usage its call recorded before a loop took it (or that no loop took). */
  private readonly held: UsageEntry[] = []
  private sink: ((entry: UsageEntry) => void) | null = null
  private taken = false
  private readonly answer: Promise<ParseTaskResult>
  /** Resolves once the call is over: with its error, or null. */
  private readonly over: Promise<unknown>
  private readonly logger: Logger

  constructor(input: Omit<ParseTaskInput, 'usage'>) {
    this.answer = parseTask({
      ...input,
      usage: { record: (entry) => (this.sink ? this.sink(entry) : this.held.push(entry)) },
    })
    // A failure is the loop's to report once it takes the answer; one that no loop takes is noted (untaken).
    this.over = this.answer.then(
      () => null,
      (err: unknown) => err,
    )
    this.logger = input.logger
  }

  take(record: (entry: UsageEntry) => void): Promise<ParseTaskResult> {
    this.taken = true
    for (const entry of this.held.splice(0)) record(entry)
    this.sink = record
    return this.answer
  }

  /**
   * The usage of a call no loop took (its lane ended before its parse: a failed setup, a Stop), once the call is
   * over, for the build to record and count; nothing when a loop took it.
   */
  async untaken(): Promise<UsageEntry[]> {
    if (this.taken) return []
    const failed = await this.over
    if (this.taken) return []
    if (failed !== null && !isAppError(failed, 'cancelled'))
      noteFailure(this.logger, 'A parse started before its lane, which ended first, failed', failed)
    return this.held.splice(0)
  }
}
