// What `ralph workers test` says of any backend (issue #39): one report shape (reached, the no-op job's node, git and
// ralph, what is wrong in one sentence and at which step), the no-op job's report line, and the steps run in order
// until one fails. The backends (dockerCheck, kubernetesCheck) add what they reach (the engine and image, the cluster).
import { isAppError } from '../../shared/errors'

/** What the no-op job found in the image. */
export interface NoopJobReport {
  node: string
  git: string
  ralph: string | null
  durationMs: number
}

export interface WorkersCheck<Step extends string> {
  ok: boolean
  /** Where jobs run (`docker: host`, `k8s: context/namespace`). */
  where: string
  job: NoopJobReport | null
  /** What is wrong, in one sentence (null when ok). */
  problem: string | null
  /** Which step failed. */
  failed: Step | null
}

/** The line the no-op job prints: `{"type":"worker.check","node":…,"git":…,"ralph":…, …}`. */
export type CheckLine = Record<string, unknown> & { node: string; git: string | null; ralph: string | null }

export function parseCheckLine(line: string): CheckLine | null {
  try {
    const v = JSON.parse(line) as Record<string, unknown> | null
    return v?.type === 'worker.check' && typeof v.node === 'string'
      ? ({
          ...v,
          git: typeof v.git === 'string' ? v.git : null,
          ralph: typeof v.ralph === 'string' ? v.ralph : null,
        } as CheckLine)
      : null
  } catch (err) {
    // Any other line the image prints (a banner, an entrypoint's chatter) is not the report.
    if (err instanceof SyntaxError) return null
    throw err
  }
}

/** The no-op job's report, or `failed` with why: none printed, or no git in the image. */
export function noopJobReport(
  line: CheckLine | null,
  durationMs: number,
  failed: (why: string) => Error,
): NoopJobReport {
  if (line === null) throw failed("it printed no report (is node on the image's PATH?)")
  if (line.git === null) throw failed('git is not in the image (jobs need git for their bundles)')
  return { node: line.node, git: line.git.replace(/^git version /, ''), ralph: line.ralph, durationMs }
}

/** A new report of `where`, nothing reached yet. */
export function newCheck<Step extends string>(where: string): WorkersCheck<Step> {
  return { ok: false, where, job: null, problem: null, failed: null }
}

/** Runs one step of the check: its value, or null with the step and its one-sentence problem noted (Stop passes). */
export function checkStep<Step extends string>(
  check: WorkersCheck<Step>,
): <T>(name: Step, run: () => Promise<T>) => Promise<T | null> {
  return async (name, run) => {
    try {
      return await run()
    } catch (err) {
      if (isAppError(err, 'cancelled')) throw err
      check.failed = name
      check.problem = isAppError(err) ? err.message : String(err)
      return null
    }
  }
}
