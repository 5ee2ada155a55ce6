import { homedir } from 'node:os'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'

/**
 * Where the Docker engine is, read from the environment the way the docker CLI reads it: `DOCKER_HOST`
 * (`unix://PATH`, `npipe://PATH`, `tcp://HOST:PORT`, `ssh://USER@HOST[:PORT]`; unset: the local socket),
 * `DOCKER_TLS_VERIFY` and `DOCKER_CERT_PATH` (ca.pem, cert.pem, key.pem; default ~/.docker) for TLS over tcp.
 * Pure: the certificate files are named here and read by the client.
 */
export type DockerTarget = (
  | { kind: 'socket'; socketPath: string; label: string }
  | {
      kind: 'tcp'
      host: string
      port: number
      /** TLS client files (ca.pem, cert.pem, key.pem) when the connection uses TLS. */
      tls: { certDir: string; verify: boolean } | null
      label: string
    }
  | {
      kind: 'ssh'
      host: string
      port: number
      username: string | undefined
      agent: string | undefined
      label: string
    }
) & {
  /** Where the address came from: the config's `dockerHost`, $DOCKER_HOST, or neither (the local socket). */
  origin: DockerOrigin
}

export type DockerOrigin = 'config' | 'env' | 'default'

const DEFAULT_SOCKET = '/var/run/docker.sock'
const WINDOWS_PIPE = '//./pipe/docker_engine'

/** `DOCKER_TLS_VERIFY`: the docker CLI takes any non-empty value as on. */
const isOn = (value: string | undefined): boolean => value !== undefined && value !== '' && value !== '0'

function badHost(value: string, why: string, origin: DockerOrigin): AppError {
  const named =
    origin === 'config' ? `The "dockerHost" ${value} (Settings → Workers)` : `DOCKER_HOST=${value}`
  return new AppError(
    'config',
    `${named} is not an address the Docker backend can use (${why}): set it to unix:///path/to/docker.sock, ` +
      `tcp://HOST:PORT or ssh://USER@HOST, or ${origin === 'config' ? 'empty it' : 'unset it'} for the local engine.`,
  )
}

/** `configured`: the config's `dockerHost`, which goes before DOCKER_HOST. */
export function dockerTarget(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
  configured?: string,
): DockerTarget {
  const fromConfig = configured?.trim() ?? ''
  const origin: DockerOrigin = fromConfig !== '' ? 'config' : env.DOCKER_HOST?.trim() ? 'env' : 'default'
  const raw = fromConfig !== '' ? fromConfig : (env.DOCKER_HOST?.trim() ?? '')
  if (raw === '') {
    const socketPath = platform === 'win32' ? WINDOWS_PIPE : DEFAULT_SOCKET
    return { kind: 'socket', socketPath, label: `docker: ${socketPath}`, origin }
  }
  const scheme = /^([a-z]+):\/\//i.exec(raw)?.[1]?.toLowerCase()
  if (scheme === 'unix' || scheme === 'npipe') {
    const socketPath = raw.slice(scheme.length + 3) || (scheme === 'unix' ? DEFAULT_SOCKET : WINDOWS_PIPE)
    return { kind: 'socket', socketPath, label: `docker: ${socketPath}`, origin }
  }
  if (scheme !== undefined && scheme !== 'tcp' && scheme !== 'ssh' && scheme !== 'http' && scheme !== 'https')
    throw badHost(raw, `${scheme}:// is not a Docker address`, origin)
  let url: URL
  try {
    url = new URL(scheme === undefined ? `tcp://${raw}` : raw)
  } catch (err) {
    throw badHost(raw, `it is not a URL: ${(err as Error).message}`, origin)
  }
  if (url.hostname === '') throw badHost(raw, 'it names no host', origin)
  if (scheme === 'ssh') {
    const port = url.port === '' ? 22 : Number(url.port)
    const username = url.username === '' ? undefined : decodeURIComponent(url.username)
    return {
      kind: 'ssh',
      host: url.hostname,
      port,
      username,
      agent: env.SSH_AUTH_SOCK,
      label: `docker: ${username ? `${username}@` : ''}${url.hostname}`,
      origin,
    }
  }
  const verify = isOn(env.DOCKER_TLS_VERIFY)
  const tlsWanted = verify || scheme === 'https' || Boolean(env.DOCKER_CERT_PATH) || url.port === '2376'
  const port = url.port === '' ? (tlsWanted ? 2376 : 2375) : Number(url.port)
  const certDir = env.DOCKER_CERT_PATH || join(env.HOME ?? homedir(), '.docker')
  return {
    kind: 'tcp',
    host: url.hostname,
    port,
    tls: tlsWanted ? { certDir, verify } : null,
    label: `docker: ${url.hostname}:${port}`,
    origin,
  }
}

/** Where a lane runs on this engine, as the user names the host: `docker: local` (a socket), or the ssh/tcp host. */
export function dockerWhere(target: DockerTarget): string {
  return target.kind === 'socket' ? 'docker: local' : `docker: ${target.host}`
}
