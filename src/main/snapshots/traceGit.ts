const tracing = (): boolean => process.env.RALPH_TRACE_GIT === '1'

const withCause = (why: string, err: unknown): string => (err === undefined ? why : `${why} (${String(err)})`)

/** RALPH_TRACE_GIT=1 also says why a staging pass left the work to git (the fallback itself is expected). */
export function traceFallback(why: string, err?: unknown): void {
  if (tracing()) process.stderr.write(`[staging through git: ${withCause(why, err)}]\n`)
}

/** RALPH_TRACE_GIT=1 also says why another fast path (reading refs or objects, repacking) gave way to git. */
export function traceGitFallback(why: string, err?: unknown): void {
  if (tracing()) process.stderr.write(`[left to git: ${withCause(why, err)}]\n`)
}
