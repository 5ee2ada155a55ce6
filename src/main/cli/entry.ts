import { main } from './main'
import { killAllGitGroups } from '../snapshots/gitProcess'
import { shutdownReason } from '../loop/shutdown'

// The process around `main`: signals, a closed stdout, the exit code. bin/ralph.js imports the built copy of this
// file (out/node/cli.js), or this source through tsx when RALPH_FROM_SOURCE=1.

/**
 * After a first Ctrl+C or SIGTERM the running command has this long to stop cleanly (its abort kills the model's
 * command and git, and the pre-task snapshot stays intact); then the process exits anyway, with 130. DESIGN.md §10
 * promises the stop within 5 s, the children included.
 */
export const STOP_GRACE_MS = 3000

const controller = new AbortController()
let interrupted = false
let readerGone = false

/** Exits now with 130: every git process group still running is killed first (sandboxed commands die with
 * their own group when the abort reaches them, and bubblewrap's namespace with its leader). */
function exitNow(): never {
  killAllGitGroups()
  process.exit(130)
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // First Ctrl+C asks the running command to stop cleanly; a second one exits at once.
    if (interrupted) exitNow()
    interrupted = true
    if (!readerGone) process.stderr.write(`\nralph: stopping (${signal}); a second Ctrl+C stops at once.\n`)
    // A signal is a shutdown, not the user's Stop: a running task ends interrupted, resumable.
    controller.abort(shutdownReason(signal === 'SIGINT' ? 'Ctrl+C' : 'SIGTERM'))
    // A command that does not notice the abort in time (a call that ignores it) must not keep the process alive:
    // unref'd, so a command that stops in time exits without waiting for it.
    setTimeout(exitNow, STOP_GRACE_MS).unref()
  })
}

// `ralph run --json | head -1`: once the reader is gone, stop the task as an interrupt would (its pre-task
// snapshot stays intact) and let nothing else be written, instead of dying on an unhandled EPIPE mid-iteration.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err
    readerGone = true
    interrupted = true
    controller.abort(shutdownReason('its output was closed'))
  })
}

const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
})
process.exitCode = readerGone || (interrupted && code === 0) ? 130 : code
