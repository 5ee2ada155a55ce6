// The worker image on the engine (issue #39): found, or pulled from its registry when the engine lacks it, so a
// user who names a pushed image needs no `docker pull` of their own. `ralph workers test` and every container job
// go through here; a pull that fails says why in one sentence and what to do.
import type Docker from 'dockerode'
import { AppError } from '../../shared/errors'
import type { DockerConnection } from './dockerClient'
import { dockerFailure, isNotFound } from './dockerErrors'

export interface ImageInfo {
  name: string
  id: string
  sizeBytes: number
}

/** One line of the engine's pull progress (the Docker API's JSON stream). */
interface PullEvent {
  status?: string
  error?: string
  errorDetail?: { message?: string }
}

const engineName = (conn: DockerConnection) => conn.target.label.replace(/^docker: /, '')

const missing = (conn: DockerConnection, name: string, why: string) =>
  new AppError(
    'not-found',
    `The image ${name} is not on the engine at ${engineName(conn)} and could not be pulled (${why}): build it with ` +
      '`npm run worker:image` (docker/worker.Dockerfile) and push it where the engine can pull it, or name the ' +
      'image to use with --image.',
  )

/** The image, pulled first when the engine does not have it. */
export async function ensureImage(
  conn: DockerConnection,
  name: string,
  signal?: AbortSignal,
): Promise<ImageInfo> {
  const found = await inspect(conn, name)
  if (found) return found
  await pull(conn, name, signal)
  const pulled = await inspect(conn, name)
  if (!pulled) throw missing(conn, name, 'the engine said the pull ended, yet has no such image')
  return pulled
}

async function inspect(conn: DockerConnection, name: string): Promise<ImageInfo | null> {
  try {
    const info = await conn.docker.getImage(name).inspect()
    return { name, id: info.Id, sizeBytes: info.Size }
  } catch (err) {
    if (isNotFound(err)) return null
    throw dockerFailure(err, conn.target, `looking up the image ${name}`)
  }
}

async function pull(conn: DockerConnection, name: string, signal?: AbortSignal): Promise<void> {
  let stream: NodeJS.ReadableStream
  try {
    stream = await conn.docker.pull(name)
  } catch (err) {
    throw missing(conn, name, engineMessage(err))
  }
  const events = await new Promise<PullEvent[]>((resolve, reject) => {
    const stop = () => {
      ;(stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.()
      reject(new AppError('cancelled', `Pulling ${name} was stopped.`))
    }
    if (signal?.aborted) return stop()
    signal?.addEventListener('abort', stop, { once: true })
    ;(conn.docker.modem as Docker['modem']).followProgress(stream, (err: Error | null, out: PullEvent[]) => {
      signal?.removeEventListener('abort', stop)
      if (err) reject(missing(conn, name, err.message))
      else resolve(out)
    })
  })
  const failed = events.find((e) => e.error || e.errorDetail?.message)
  if (failed) throw missing(conn, name, (failed.errorDetail?.message ?? failed.error ?? '').trim())
}

/** The engine's own words for a refused pull (its JSON message), else the error's. */
function engineMessage(err: unknown): string {
  const e = err as { json?: { message?: string } | null; message?: string }
  return (e.json?.message ?? e.message ?? String(err)).trim()
}
