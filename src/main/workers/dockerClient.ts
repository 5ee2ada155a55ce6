import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Docker from 'dockerode'
import { AppError } from '../../shared/errors'
import { isMissing } from '../workspace'
import { dockerTarget, type DockerTarget } from './dockerHost'

export interface DockerConnection {
  docker: Docker
  target: DockerTarget
}

function readCert(certDir: string, name: string, needed: boolean): Buffer | undefined {
  try {
    return readFileSync(join(certDir, name))
  } catch (err) {
    if (!isMissing(err) || needed)
      throw new AppError(
        'config',
        `The TLS file ${join(certDir, name)} for DOCKER_HOST could not be read (${(err as Error).message}): put ` +
          'ca.pem, cert.pem and key.pem in DOCKER_CERT_PATH (default ~/.docker), or unset DOCKER_TLS_VERIFY.',
      )
    return undefined
  }
}

/**
 * Every option docker-modem would otherwise take from process.env itself is set here (undefined included), so the
 * engine is the one `env` names: the CLI's environment, or the app's.
 */
function modemOptions(target: DockerTarget): Docker.DockerOptions & Record<string, unknown> {
  const none = {
    socketPath: undefined,
    host: undefined,
    port: undefined,
    protocol: undefined,
    username: undefined,
    ca: undefined,
    cert: undefined,
    key: undefined,
    pathPrefix: '/',
  }
  switch (target.kind) {
    case 'socket':
      return { ...none, socketPath: target.socketPath }
    case 'ssh':
      return {
        ...none,
        protocol: 'ssh',
        host: target.host,
        port: target.port,
        username: target.username,
        sshOptions: { agent: target.agent },
      }
    case 'tcp': {
      if (target.tls === null) return { ...none, protocol: 'http', host: target.host, port: target.port }
      const { certDir, verify } = target.tls
      return {
        ...none,
        protocol: 'https',
        host: target.host,
        port: target.port,
        ca: readCert(certDir, 'ca.pem', verify),
        cert: readCert(certDir, 'cert.pem', true),
        key: readCert(certDir, 'key.pem', true),
      }
    }
  }
}

/**
 * A client for the engine the config's `dockerHost` names, else `env`'s DOCKER_HOST (…); nothing is contacted until
 * the first call.
 */
export function connectDocker(env: NodeJS.ProcessEnv, dockerHost?: string): DockerConnection {
  const target = dockerTarget(env, process.platform, dockerHost)
  return { docker: new Docker(modemOptions(target)), target }
}
