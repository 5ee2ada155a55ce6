import { once } from 'node:events'
import { PassThrough } from 'node:stream'
import { createInterface } from 'node:readline'
import type Docker from 'dockerode'
import { noteFailure, type Logger } from '../workspace'

export type LineStream = 'stdout' | 'stderr'

export interface ContainerLines {
  /** Resolves when the container's output has ended and every line was handed on. */
  ended: Promise<void>
  /** The last lines of stderr (for a one-sentence failure). */
  stderrTail(): string
}

const TAIL_LINES = 20

/**
 * Splits a container's multiplexed output (no TTY: docker frames stdout and stderr apart) into lines as they come,
 * so NDJSON events are handed on one by one while the job runs.
 */
export function containerLines(
  docker: Docker,
  output: NodeJS.ReadableStream,
  onLine: (line: string, stream: LineStream) => void,
  log: Logger,
): ContainerLines {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  const tail: string[] = []
  const read = (stream: PassThrough, name: LineStream) => {
    const lines = createInterface({ input: stream, crlfDelay: Infinity })
    lines.on('line', (line) => {
      if (name === 'stderr') {
        tail.push(line)
        if (tail.length > TAIL_LINES) tail.shift()
      }
      onLine(line, name)
    })
    return once(lines, 'close')
  }
  const done = Promise.all([read(stdout, 'stdout'), read(stderr, 'stderr')])
  docker.modem.demuxStream(output, stdout, stderr)
  const finish = () => {
    stdout.end()
    stderr.end()
  }
  output.on('end', finish)
  output.on('close', finish)
  output.on('error', (err) => {
    // The job's outcome comes from the engine's wait, not from this stream: what was read so far is kept.
    noteFailure(log, "a container's output stream broke before it ended", err)
    finish()
  })
  return { ended: done.then(() => undefined), stderrTail: () => tail.join('\n') }
}
