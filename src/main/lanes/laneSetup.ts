// A lane's setup command (`.ralph/config.json` "lanes": { "setup": "npm ci" }): run once in the lane's own sandbox
// (only the lane writable, the lane's RALPH_LANE and ports in its environment) before the task's first iteration.
import { runShellCommand, type ShellOutcome } from '../tools'
import type { Logger } from '../workspace'

/** As long as the longest command the sandbox runs: an install of a large project takes minutes. */
export const SETUP_TIMEOUT_MS = 10 * 60_000

/**
 * Runs the setup command in the lane; null when it succeeded, otherwise the message that fails the task (what ran,
 * how it ended, the end of its output). A Stop during the setup stops the task (it throws the signal's reason).
 */
export async function runLaneSetup(opts: {
  workDir: string
  lane: number
  command: string
  env: NodeJS.ProcessEnv
  signal: AbortSignal
  logger: Logger
  timeoutMs?: number
}): Promise<string | null> {
  const timeoutMs = opts.timeoutMs ?? SETUP_TIMEOUT_MS
  const outcome = await runShellCommand(opts.command, {
    cwd: opts.workDir,
    timeoutMs,
    signal: opts.signal,
    env: opts.env,
    logger: opts.logger,
  })
  opts.signal.throwIfAborted()
  const failed = setupFailure(outcome, timeoutMs)
  if (failed === null) return null
  const output = outcome.output.trim()
  return (
    `Lane ${opts.lane}'s setup command \`${opts.command}\` (lanes.setup in .ralph/config.json) ${failed}, so the ` +
    `task did not start. Fix the command (or what it needs), then build again.` +
    (output ? `\n\nThe end of its output:\n${output.slice(-2000)}` : ' It printed nothing.')
  )
}

/** How a setup run failed, or null when it succeeded. */
export function setupFailure(outcome: ShellOutcome, timeoutMs: number): string | null {
  if (outcome.spawnError !== null) return `could not start (${outcome.spawnError})`
  if (outcome.timedOut) return `did not finish within ${Math.round(timeoutMs / 60_000)} minutes`
  if (outcome.limitHit) return `was stopped: it passed the sandbox's ${outcome.limitHit} limit`
  if (outcome.exitCode === 0) return null
  return outcome.exitCode === null
    ? `was killed (${outcome.signal ?? 'signal'})`
    : `exited with ${outcome.exitCode}`
}
