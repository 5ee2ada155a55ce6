import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { isAppError } from '../../shared/errors'
import { connectDocker } from './dockerClient'

it('tcp with TLS reads ca.pem, cert.pem and key.pem from DOCKER_CERT_PATH, and names a missing one', () => {
  const certs = mkdtempSync(join(tmpdir(), 'ralph-certs-'))
  const env = { DOCKER_HOST: 'tcp://build.example:2376', DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: certs }
  let caught: unknown
  try {
    connectDocker(env)
  } catch (err) {
    caught = err
  }
  expect(isAppError(caught, 'config')).toBe(true)
  expect((caught as Error).message).toMatch(
    new RegExp(`^The TLS file ${join(certs, 'ca.pem')} for DOCKER_HOST could not be read .*DOCKER_CERT_PATH`),
  )
  for (const f of ['ca.pem', 'cert.pem', 'key.pem']) writeFileSync(join(certs, f), `${f} text`)
  const { docker, target } = connectDocker(env)
  expect(target.label).toBe('docker: build.example:2376')
  expect(docker.modem).toMatchObject({ protocol: 'https', host: 'build.example', port: 2376 })
  expect(String((docker.modem as unknown as { ca: Buffer }).ca)).toBe('ca.pem text')
  rmSync(certs, { recursive: true })
})

it('the engine is the one the given environment names, whatever the process environment says', () => {
  const { docker } = connectDocker({ DOCKER_HOST: 'unix:///run/podman/podman.sock' })
  expect(docker.modem).toMatchObject({ socketPath: '/run/podman/podman.sock', host: undefined })
  const ssh = connectDocker({ DOCKER_HOST: 'ssh://ci@runner:2222', SSH_AUTH_SOCK: '/tmp/agent.sock' }).docker
    .modem
  expect(ssh).toMatchObject({ protocol: 'ssh', host: 'runner', port: 2222, username: 'ci' })
})
