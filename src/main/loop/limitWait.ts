import { AppError } from '../../shared/errors'
import { formatDuration } from '../../shared/format'
import { sleep, type UsageLimitError } from '../llm'
import type { LoopConfig } from './ralphState'

/** Whether a task may wait for a usage limit, and for how long at most. */
export interface LimitWaitPolicy {
  enabled: boolean
  maxWaitMs: number
  /** Why waiting is off, for the failure message ("--no-wait was given" …). */
  offReason?: string
}

/** Whether and how long the task waits for a usage limit: off with `--no-wait` or limitWaitMaxMinutes 0. */
export function limitWaitPolicy(
  waitForLimits: boolean | undefined,
  config: Pick<LoopConfig, 'limitWaitMaxMinutes'>,
): LimitWaitPolicy {
  return {
    enabled: waitForLimits !== false && config.limitWaitMaxMinutes > 0,
    maxWaitMs: config.limitWaitMaxMinutes * 60_000,
    offReason:
      waitForLimits === false
        ? 'waiting is turned off for this run (--no-wait)'
        : 'limitWaitMaxMinutes in .ralph/config.json is 0, which turns waiting off',
  }
}

/** A usage limit the task will not wait for: it fails with reason `usage-limit` (exit 5 in the CLI). */
export class LimitNotWaitedError extends AppError {
  constructor(message: string) {
    super('provider', message)
    this.name = 'LimitNotWaitedError'
  }
}

/** A few seconds past the reset, so the repeated request does not arrive a moment too early. */
const RESET_MARGIN_MS = 250
/** Sleeps in short steps against the wall clock: a laptop that sleeps through the reset resumes on waking. */
const STEP_MS = 30_000

/** Throws a LimitNotWaitedError when the policy forbids waiting for this limit; returns otherwise. */
export function checkLimitPolicy(limit: UsageLimitError, policy: LimitWaitPolicy): void {
  const when = `${new Date(limit.resetAt).toISOString()} (in ${formatDuration(limit.waitMs)})`
  const off = !policy.enabled
    ? (policy.offReason ?? 'waiting for usage limits is off')
    : limit.waitMs > policy.maxWaitMs
      ? `that is longer than the ${formatDuration(policy.maxWaitMs)} a task may wait ("limitWaitMaxMinutes" in .ralph/config.json)`
      : null
  if (off === null) return
  throw new LimitNotWaitedError(
    `The provider's usage limit is reached until ${when}, and ${off}. Run the task again after the reset` +
      `${policy.enabled ? ', or raise limitWaitMaxMinutes' : ', or without --no-wait to let it wait'}.` +
      (limit.providerMessage ? ` The provider said: ${limit.providerMessage}` : ''),
  )
}

/** Waits until `resetAt` (wall clock), or rejects with AppError('cancelled') as soon as `signal` aborts. */
export async function waitUntil(
  resetAt: number,
  signal: AbortSignal,
  now: () => number = Date.now,
): Promise<void> {
  const target = resetAt + RESET_MARGIN_MS
  while (now() < target) await sleep(Math.min(target - now(), STEP_MS), signal)
}
