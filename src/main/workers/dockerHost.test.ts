import { describe, expect, it } from 'vitest'
import { isAppError } from '../../shared/errors'
import { dockerFailure } from './dockerErrors'
import { dockerTarget, dockerWhere } from './dockerHost'

describe('dockerTarget reads DOCKER_HOST the way the docker CLI does', () => {
  it('unset: the local socket', () => {
    expect(dockerTarget({}, 'linux')).toEqual({
      kind: 'socket',
      socketPath: '/var/run/docker.sock',
      label: 'docker: /var/run/docker.sock',
      origin: 'default',
    })
    expect(dockerTarget({}, 'win32')).toMatchObject({ socketPath: '//./pipe/docker_engine' })
  })

  it('unix:// and npipe:// name a socket', () => {
    expect(dockerTarget({ DOCKER_HOST: 'unix:///run/podman/podman.sock' })).toMatchObject({
      kind: 'socket',
      socketPath: '/run/podman/podman.sock',
    })
    expect(dockerTarget({ DOCKER_HOST: 'npipe:////./pipe/podman' })).toMatchObject({
      socketPath: '//./pipe/podman',
    })
  })

  it('tcp:// is plain http unless TLS is asked for; TLS takes the certificates from DOCKER_CERT_PATH', () => {
    expect(dockerTarget({ DOCKER_HOST: 'tcp://build.example:2375' })).toEqual({
      kind: 'tcp',
      host: 'build.example',
      port: 2375,
      tls: null,
      label: 'docker: build.example:2375',
      origin: 'env',
    })
    expect(
      dockerTarget({ DOCKER_HOST: 'tcp://10.0.0.5', DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: '/certs' }),
    ).toMatchObject({ port: 2376, tls: { certDir: '/certs', verify: true } })
    expect(dockerTarget({ DOCKER_HOST: 'tcp://h:2376', HOME: '/home/u' })).toMatchObject({
      tls: { certDir: '/home/u/.docker', verify: false },
    })
    expect(dockerTarget({ DOCKER_HOST: 'h:2375', DOCKER_TLS_VERIFY: '0' })).toMatchObject({
      host: 'h',
      tls: null,
    })
  })

  it('ssh://user@host[:port] goes through ssh with the agent', () => {
    expect(
      dockerTarget({ DOCKER_HOST: 'ssh://ci@runner.example:2222', SSH_AUTH_SOCK: '/tmp/agent' }),
    ).toEqual({
      kind: 'ssh',
      host: 'runner.example',
      port: 2222,
      username: 'ci',
      agent: '/tmp/agent',
      label: 'docker: ci@runner.example',
      origin: 'env',
    })
    expect(dockerTarget({ DOCKER_HOST: 'ssh://runner' })).toMatchObject({ port: 22, username: undefined })
  })

  it('an address it cannot use is a configuration error naming the variable and what to set', () => {
    for (const bad of ['fd://', 'tcp://', 'ftp://x']) {
      let caught: unknown
      try {
        dockerTarget({ DOCKER_HOST: bad })
      } catch (err) {
        caught = err
      }
      expect(isAppError(caught, 'config')).toBe(true)
      expect((caught as Error).message).toMatch(/^DOCKER_HOST=.* is not an address .*set it to unix:\/\//)
    }
  })
})

it('a lane on an engine is placed as the user names its host: a socket is "local", else the ssh or tcp host', () => {
  expect(dockerWhere(dockerTarget({}, 'linux'))).toBe('docker: local')
  expect(dockerWhere(dockerTarget({ DOCKER_HOST: 'unix:///run/podman/podman.sock' }))).toBe('docker: local')
  expect(dockerWhere(dockerTarget({ DOCKER_HOST: 'ssh://me@build-box:2222' }))).toBe('docker: build-box')
  expect(dockerWhere(dockerTarget({ DOCKER_HOST: 'tcp://10.0.0.5:2376' }))).toBe('docker: 10.0.0.5')
})

describe('the config\'s "dockerHost" goes before DOCKER_HOST, and a failure says which of them named the engine', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })

  it('dockerHost from Settings → Workers', () => {
    const target = dockerTarget({ DOCKER_HOST: 'tcp://elsewhere:2375' }, 'linux', 'tcp://127.0.0.1:9')
    expect(target).toMatchObject({ kind: 'tcp', host: '127.0.0.1', port: 9, origin: 'config' })
    expect(dockerFailure(refused, target, 'creating the container').message).toBe(
      'The Docker engine at http://127.0.0.1:9 ("dockerHost" in Settings → Workers) cannot be reached: nothing ' +
        'listens there. To use it, start Docker (or `podman system service`) there, or set "dockerHost" in ' +
        'Settings → Workers to the engine (unix://, tcp:// or ssh://).',
    )
    expect(() => dockerTarget({}, 'linux', 'ftp://x')).toThrow(
      /^The "dockerHost" ftp:\/\/x \(Settings → Workers\)/,
    )
  })

  it('$DOCKER_HOST, and neither (the local socket)', () => {
    const env = dockerTarget({ DOCKER_HOST: 'tcp://127.0.0.1:9' }, 'linux', '  ')
    expect(dockerFailure(refused, env, 'x').message).toMatch(
      /^The Docker engine at http:\/\/127\.0\.0\.1:9 \(DOCKER_HOST\) /,
    )
    const local = dockerTarget({}, 'linux')
    expect(dockerFailure({ code: 'ENOENT' }, local, 'x').message).toBe(
      'The Docker engine at the socket /var/run/docker.sock (the local socket: neither "dockerHost" nor DOCKER_HOST ' +
        'is set) cannot be reached: nothing is at that path. To use it, start Docker (or `podman system service`) ' +
        'there, or set DOCKER_HOST to the engine (unix://, tcp:// or ssh://).',
    )
  })
})
