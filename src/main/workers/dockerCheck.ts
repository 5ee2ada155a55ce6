import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import { ifMissing, type Logger } from '../workspace'
import { runContainerJob } from './docker'
import type { DockerConnection } from './dockerClient'
import { dockerFailure } from './dockerErrors'
import { ensureImage } from './dockerImage'
import {
  checkStep,
  newCheck,
  noopJobReport,
  parseCheckLine,
  type CheckLine,
  type WorkersCheck,
} from './workersCheck'

const PING_TIMEOUT_MS = 10_000

export interface DockerCheck extends WorkersCheck<'engine' | 'image' | 'job'> {
  engine: { name: string; version: string; apiVersion: string } | null
  image: { name: string; id: string; sizeBytes: number } | null
}

// The no-op job: reads the file put in, writes one to take out, says which node, git and ralph the image has.
const NOOP = `
const { execFileSync } = require('node:child_process')
const fs = require('node:fs')
const run = (cmd, args) => { try { return execFileSync(cmd, args, { encoding: 'utf8' }).trim() } catch { return null } }
const nonce = fs.readFileSync('/job/ping.txt', 'utf8')
fs.mkdirSync('/result', { recursive: true })
fs.writeFileSync('/result/pong.txt', nonce)
console.log(JSON.stringify({ type: 'worker.check', node: process.version, git: run('git', ['--version']), ralph: run('ralph', ['--version']) }))
`

async function engineOf(
  conn: DockerConnection,
  signal: AbortSignal,
): Promise<NonNullable<DockerCheck['engine']>> {
  const timeout = AbortSignal.timeout(PING_TIMEOUT_MS)
  try {
    // dockerode's ping takes { abortSignal } (lib/docker.js); @types/dockerode does not declare it.
    const ping = conn.docker.ping as unknown as (
      this: unknown,
      opts: { abortSignal: AbortSignal },
    ) => Promise<unknown>
    await ping.call(conn.docker, { abortSignal: AbortSignal.any([signal, timeout]) })
    const v = await conn.docker.version()
    const podman = v.Components?.find((c) => /podman/i.test(c.Name))
    return {
      name: podman ? 'Podman' : 'Docker',
      version: podman?.Version ?? v.Version,
      apiVersion: v.ApiVersion,
    }
  } catch (err) {
    if (signal.aborted) throw new AppError('cancelled', 'The check was stopped.')
    throw dockerFailure(
      timeout.aborted ? Object.assign(new Error('timeout'), { code: 'ABORT_ERR' }) : err,
      conn.target,
      'the check',
    )
  }
}

async function noopJob(
  conn: DockerConnection,
  image: string,
  signal: AbortSignal,
  log: Logger,
): Promise<NonNullable<DockerCheck['job']>> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-worker-check-'))
  try {
    const inDir = join(dir, 'in')
    const outDir = join(dir, 'out')
    await Promise.all([mkdir(inDir), mkdir(outDir)])
    const nonce = `${Date.now()}-${Math.random()}`
    await writeFile(join(inDir, 'ping.txt'), nonce)
    let report: CheckLine | null = null
    const outcome = await runContainerJob(conn, {
      image,
      command: ['node', '-e', NOOP],
      input: { fromDir: inDir, to: '/job' },
      output: { from: '/result', intoDir: outDir, maxBytes: 1024 * 1024 },
      limits: { cpus: 1, memoryBytes: 256 * 1024 ** 2, pids: 64, wallTimeMs: 60_000 },
      network: 'none',
      labels: { 'dev.ralph-studio.check': '1' },
      onLine: (line, stream) => {
        if (stream === 'stdout') report ??= parseCheckLine(line)
      },
      signal,
      log,
    })
    const kept = outcome.kept ? ' (its container is kept for a look: ralph workers clean removes it)' : ''
    const failed = (why: string) =>
      new AppError('task-failed', `The no-op job in ${image} failed: ${why}${kept}.`, {
        containerId: outcome.containerId,
      })
    const stderr = outcome.stderrTail.split('\n').at(-1)?.trim()
    if (outcome.ended === 'timed-out') throw failed('it did not end within 60 s')
    if (outcome.exitCode !== 0)
      throw failed(
        `it exited with ${outcome.exitCode}${stderr ? ` (${stderr})` : ''}; is node on the image's PATH?`,
      )
    const back = outcome.outputCopied
      ? await readFile(join(outDir, 'pong.txt'), 'utf8').catch(ifMissing(null))
      : null
    if (back !== nonce) throw failed('the file it wrote did not come back out of the container')
    return noopJobReport(report, outcome.durationMs, failed)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** `ralph workers test` for Docker: reaches the engine, finds (or pulls) the image, runs a no-op job through it. */
export async function checkDockerWorkers(
  conn: DockerConnection,
  image: string,
  signal: AbortSignal,
  log: Logger,
): Promise<DockerCheck> {
  const check: DockerCheck = { ...newCheck(conn.target.label), engine: null, image: null }
  const step = checkStep(check)
  check.engine = await step('engine', () => engineOf(conn, signal))
  if (check.engine) check.image = await step('image', () => ensureImage(conn, image, signal))
  if (check.image) check.job = await step('job', () => noopJob(conn, image, signal, log))
  check.ok = check.job !== null
  return check
}
