import { main } from './main'

// The process around `main`: signals, a closed stdout, the exit code. bin/ralph.js imports the built copy of this
// file (out/node/cli.js), or this source through tsx when RALPH_FROM_SOURCE=1.

const controller = new AbortController()
let interrupted = false
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // First Ctrl+C asks the running command to stop cleanly; a second one exits at once.
    if (interrupted) process.exit(130)
    interrupted = true
    controller.abort()
  })
}

// `ralph run --json | head -1`: once the reader is gone, stop the task as an interrupt would (its pre-task
// snapshot stays intact) and let nothing else be written, instead of dying on an unhandled EPIPE mid-iteration.
let readerGone = false
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err
    readerGone = true
    interrupted = true
    controller.abort()
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
