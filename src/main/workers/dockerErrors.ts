import { AppError, isAppError } from '../../shared/errors'
import type { DockerTarget } from './dockerHost'

/** What the engine (or the way to it) answered, as docker-modem reports it. */
interface EngineError {
  code?: string
  statusCode?: number
  message?: string
  json?: { message?: string } | null
}

const where = (target: DockerTarget): string => {
  switch (target.kind) {
    case 'socket':
      return `the socket ${target.socketPath}`
    case 'tcp':
      return `${target.tls ? 'https' : 'http'}://${target.host}:${target.port}`
    case 'ssh':
      return `ssh://${target.username ? `${target.username}@` : ''}${target.host}:${target.port}`
  }
}

/** Where the address came from, in the user's words: what they set (or did not). */
const FROM: Record<DockerTarget['origin'], string> = {
  config: '"dockerHost" in Settings → Workers',
  env: 'DOCKER_HOST',
  default: 'the local socket: neither "dockerHost" nor DOCKER_HOST is set',
}

const how = (target: DockerTarget): string =>
  'start Docker (or `podman system service`) there, or set ' +
  `${target.origin === 'config' ? '"dockerHost" in Settings → Workers' : 'DOCKER_HOST'} to the engine ` +
  '(unix://, tcp:// or ssh://)'

/** Why the connection itself failed, in words, or null when the engine answered. */
function connectionWhy(err: EngineError): string | null {
  const msg = err.message ?? ''
  switch (err.code) {
    case 'ENOENT':
      return 'nothing is at that path'
    case 'ECONNREFUSED':
      return 'nothing listens there'
    case 'EACCES':
    case 'EPERM':
      return 'this user may not open it'
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name is unknown'
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the host does not answer'
    case 'ECONNRESET':
    case 'EPIPE':
      return 'the connection was dropped'
    case 'ABORT_ERR':
      return 'it did not answer in time'
  }
  if (/authentication|handshake|ssh/i.test(msg)) return `ssh failed (${msg})`
  if (/certificate|self.signed|tls|ssl/i.test(msg)) return `TLS failed (${msg})`
  return null
}

/**
 * One sentence saying what is wrong with the engine: unreachable (and why), or what it refused. `doing` names
 * the step ("creating the container").
 */
export function dockerFailure(err: unknown, target: DockerTarget, doing: string): AppError {
  if (isAppError(err)) return err
  const e = (err ?? {}) as EngineError
  const why = connectionWhy(e)
  if (why !== null)
    return new AppError(
      'config',
      `The Docker engine at ${where(target)} (${FROM[target.origin]}) cannot be reached: ${why}. To use it, ${how(target)}.`,
      { code: e.code ?? null },
      { cause: err },
    )
  const said = (e.json?.message ?? e.message ?? String(err)).trim()
  return new AppError(
    'config',
    `The Docker engine at ${where(target)} refused ${doing}: ${said}`,
    { statusCode: e.statusCode ?? null },
    { cause: err },
  )
}

/** The engine answered 404: the image, container or path is not there. */
export const isNotFound = (err: unknown): boolean => (err as EngineError | null)?.statusCode === 404
