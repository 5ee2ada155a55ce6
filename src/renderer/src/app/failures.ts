/**
 * The renderer's counterpart of src/main/workspace/failures.ts. The renderer has no log file: a failure it
 * deliberately survives (nothing the user acted on is lost) is reported to the console with why it was survived.
 * A failure of something the user did belongs in the UI instead (a toast, an inline message).
 */

/** Reports a failure the renderer survives: `why` says what was skipped and why that is fine. */
export function noteFailure(why: string, err: unknown): void {
  console.warn(`Ralph Studio: ${why}`, err)
}

/** `.catch(fallbackTo('why', value))`: notes the failure, then settles with the fallback. */
export const fallbackTo =
  <T>(why: string, fallback: T) =>
  (err: unknown): T => {
    noteFailure(why, err)
    return fallback
  }
