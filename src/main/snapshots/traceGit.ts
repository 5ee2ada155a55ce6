/** RALPH_TRACE_GIT=1 also says why a fast path left the work to git (the fallback itself is expected). */
export function traceFallback(why: string, err?: unknown): void {
  if (process.env.RALPH_TRACE_GIT !== '1') return
  process.stderr.write(`[staging through git: ${err === undefined ? why : `${why} (${String(err)})`}]\n`)
}
