import { posix } from 'node:path'
import type Docker from 'dockerode'
import { AppError } from '../../shared/errors'
import { noteFailure, type Logger } from '../workspace'
import type { DockerConnection } from './dockerClient'
import { ensureImage } from './dockerImage'
import { packFolder, unpackInto } from './dockerArchive'
import { dockerFailure, isNotFound } from './dockerErrors'
import { containerLines, type LineStream } from './dockerLines'
import { containerSpec, WORKER_LABEL } from './dockerSpec'

import type { ContainerLimits } from './dockerSpec'

export type { ContainerLimits } from './dockerSpec'
export { WORKER_LABEL }

/** One job run as a container: files in, a command with its environment, lines out while it runs, files out. */
export interface ContainerJob {
  image: string
  command: string[]
  /** The job's environment (a model key belongs here, never in the image or the files). */
  env?: Record<string, string>
  /** A local folder copied into the container before it starts, at `to` (an absolute path). */
  input?: { fromDir: string; to: string }
  /** A container folder copied out after the job ends, into the local folder `intoDir` (which must exist). */
  output?: { from: string; intoDir: string; maxBytes?: number }
  limits: ContainerLimits
  /** Docker's network mode: 'bridge' (the engine's default), 'host', 'none' … */
  network?: string
  workdir?: string
  /** Extra labels (the worker label is always set, so `cleanKeptContainers` finds what a failure leaves). */
  labels?: Record<string, string>
  onLine?: (line: string, stream: LineStream) => void
  /** Stops the job: the container is killed and removed. */
  signal?: AbortSignal
  log: Logger
}

export interface ContainerOutcome {
  containerId: string
  /** How the job ended: on its own, killed at the wall-time limit, or stopped through the signal. */
  ended: 'exited' | 'timed-out' | 'cancelled'
  /** The command's exit code; null when it was killed. */
  exitCode: number | null
  /** The result folder was copied out (false: the job made none, or it was stopped). */
  outputCopied: boolean
  outputBytes: number
  /** The container was left on the engine for a look (a failure); `cleanKeptContainers` removes it. */
  kept: boolean
  stderrTail: string
  durationMs: number
}

const DEFAULT_MAX_OUTPUT = 2 * 1024 ** 3

/** The container answered a kill or a removal with "already so": nothing to do. */
const alreadyDone = (err: unknown): boolean => {
  const status = (err as { statusCode?: number } | null)?.statusCode
  return status === 304 || status === 404 || status === 409
}

function abortError(): AppError {
  return new AppError('cancelled', 'The container job was stopped.')
}

async function putInput(
  container: Docker.Container,
  input: NonNullable<ContainerJob['input']>,
): Promise<void> {
  if (!posix.isAbsolute(input.to) || posix.dirname(input.to) === input.to)
    throw new AppError(
      'internal',
      `The container path for the job's files must be an absolute folder: ${input.to}`,
    )
  const packed = await packFolder(input.fromDir, posix.basename(input.to))
  await Promise.all([container.putArchive(packed.stream, { path: posix.dirname(input.to) }), packed.done])
}

/** Waits for the container to end, killing it at the deadline or when the signal fires. */
async function waitWithin(
  container: Docker.Container,
  wallTimeMs: number,
  signal: AbortSignal | undefined,
  log: Logger,
): Promise<{ ended: ContainerOutcome['ended']; exitCode: number | null }> {
  let reason: 'timed-out' | 'cancelled' | null = null
  const kill = (why: 'timed-out' | 'cancelled') => {
    if (reason !== null) return
    reason = why
    container.kill().catch((err: unknown) => {
      if (!alreadyDone(err)) noteFailure(log, `a container past its ${why} could not be killed`, err)
    })
  }
  const timer = setTimeout(() => kill('timed-out'), wallTimeMs)
  const onAbort = () => kill('cancelled')
  signal?.addEventListener('abort', onAbort, { once: true })
  // A Stop that came while the container was starting (its first lines may already have arrived) fires no event.
  if (signal?.aborted) onAbort()
  try {
    const result = (await container.wait()) as { StatusCode?: number }
    if (reason !== null) return { ended: reason, exitCode: null }
    return { ended: 'exited', exitCode: result.StatusCode ?? null }
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', onAbort)
  }
}

/** How long the output stream may trail the container's end before the lines read so far are all there is. */
const OUTPUT_TRAIL_MS = 10_000

async function linesEnded(ended: Promise<void>, log: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), OUTPUT_TRAIL_MS)))
  const first = await Promise.race([ended, late])
  clearTimeout(timer)
  if (first === 'late')
    noteFailure(
      log,
      "a container's output did not end within 10 s of the container",
      new Error('output trailing'),
    )
}

async function copyOutput(
  container: Docker.Container,
  output: NonNullable<ContainerJob['output']>,
): Promise<{ copied: boolean; bytes: number }> {
  let archive: NodeJS.ReadableStream
  try {
    archive = await container.getArchive({ path: output.from })
  } catch (err) {
    if (isNotFound(err)) return { copied: false, bytes: 0 }
    throw err
  }
  const bytes = await unpackInto(archive, output.intoDir, output.maxBytes ?? DEFAULT_MAX_OUTPUT)
  return { copied: true, bytes }
}

/**
 * Runs one job in a new container on the engine: created with the limits, the input put in, started with its
 * output followed line by line, waited for within the wall time, the output taken out, then removed — or kept,
 * labelled, when it failed (a non-zero exit or the deadline), so it can be looked at and cleaned later.
 */
export async function runContainerJob(conn: DockerConnection, job: ContainerJob): Promise<ContainerOutcome> {
  const { docker, target } = conn
  if (job.signal?.aborted) throw abortError()
  const started = Date.now()
  let step = 'creating the container'
  let container: Docker.Container | null = null
  let keep = false
  try {
    step = 'finding the image'
    await ensureImage(conn, job.image, job.signal)
    step = 'creating the container'
    container = await docker.createContainer(containerSpec(job))
    if (job.input) {
      step = "copying the job's files into the container"
      await putInput(container, job.input)
    }
    step = "following the container's output"
    const output = await container.attach({ stream: true, stdout: true, stderr: true, logs: true })
    const lines = containerLines(docker, output, job.onLine ?? (() => undefined), job.log)
    if (job.signal?.aborted) throw abortError()
    step = 'starting the container'
    await container.start()
    step = 'waiting for the container'
    const { ended, exitCode } = await waitWithin(container, job.limits.wallTimeMs, job.signal, job.log)
    await linesEnded(lines.ended, job.log)
    let copied = { copied: false, bytes: 0 }
    if (job.output && ended !== 'cancelled') {
      step = "copying the job's result out of the container"
      copied = await copyOutput(container, job.output)
    }
    keep = ended === 'timed-out' || (ended === 'exited' && exitCode !== 0)
    return {
      containerId: container.id,
      ended,
      exitCode,
      outputCopied: copied.copied,
      outputBytes: copied.bytes,
      kept: keep,
      stderrTail: lines.stderrTail(),
      durationMs: Date.now() - started,
    }
  } catch (err) {
    keep = container !== null && !job.signal?.aborted
    throw dockerFailure(err, target, step)
  } finally {
    if (container !== null && !keep)
      await container.remove({ force: true, v: true }).catch((err: unknown) => {
        if (!alreadyDone(err))
          noteFailure(job.log, `the container ${container!.id} could not be removed`, err)
      })
  }
}

/**
 * Removes the containers jobs left behind (labelled as Ralph's, no longer running: a running one belongs to a job
 * still under way); `labels` narrows it further. Gives their ids.
 */
export async function cleanKeptContainers(
  conn: DockerConnection,
  labels: Record<string, string> = {},
): Promise<string[]> {
  const label = [WORKER_LABEL, ...Object.entries(labels).map(([k, v]) => `${k}=${v}`)]
  try {
    // Filtered here rather than by the engine's `status` filter: Podman's service refuses Docker's "dead".
    const listed = await conn.docker.listContainers({ all: true, filters: { label } })
    const kept = listed.filter((c) => !['running', 'paused', 'restarting'].includes(c.State))
    for (const c of kept) await conn.docker.getContainer(c.Id).remove({ force: true, v: true })
    return kept.map((c) => c.Id)
  } catch (err) {
    throw dockerFailure(err, conn.target, "removing Ralph's kept containers")
  }
}
