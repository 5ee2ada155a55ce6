// Why a task's abort happened: the user's Stop, or the process shutting down (Ctrl+C or SIGTERM to `ralph`, the web
// host stopped, the app quitting, an OS shutdown). A shutdown is an interruption, not the user's decision: the task
// ends `interrupted`, resumable exactly as after a hard kill, while a Stop ends it `stopped`.

/** The abort reason a host passes when it shuts down (`controller.abort(shutdownReason('SIGTERM'))`). */
export class ShutdownAbort extends Error {
  override name = 'ShutdownAbort'
  /** What shut it down, in words for the card: "SIGTERM", "Ctrl+C", "the app quit". */
  readonly why: string
  constructor(why: string) {
    super(`Ralph was shut down (${why}) while the task ran.`)
    this.why = why
  }
}

export function shutdownReason(cause: string): ShutdownAbort {
  return new ShutdownAbort(cause)
}

/** True when the signal was aborted by a shutdown rather than a Stop. */
export function abortedByShutdown(signal: AbortSignal | undefined): signal is AbortSignal {
  return signal?.aborted === true && signal.reason instanceof ShutdownAbort
}
