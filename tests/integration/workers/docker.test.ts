// The Docker backend against a real engine: Podman's Docker-compatible service (podman system service with runc),
// one service and one image (built here from the host's node and git, no registry) for the whole file.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureLocalWorkerImage } from '../../../scripts/worker-image-local'
import { isAppError } from '../../../src/shared/errors'
import { cleanKeptContainers, runContainerJob, WORKER_LABEL } from '../../../src/main/workers/docker'
import { packFolder } from '../../../src/main/workers/dockerArchive'
import { connectDocker, type DockerConnection } from '../../../src/main/workers/dockerClient'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { runCli } from '../../helpers/cli'
import { podmanSkipReason, startPodman, type PodmanService } from '../../helpers/podman'
import { makeTempDir } from '../../helpers/tempDir'

if (podmanSkipReason) console.log(`Docker-backend tests skipped: ${podmanSkipReason}.`)

/** Reads the pids limit the container's cgroup got (v1 or v2 layout), or "unknown". */
const PIDS_MAX = `(() => { for (const p of ['/sys/fs/cgroup/pids/pids.max', '/sys/fs/cgroup/pids.max']) { try { return require('fs').readFileSync(p, 'utf8').trim() } catch {} } return 'unknown' })()`

describe.skipIf(podmanSkipReason !== null)('Docker workers on a real engine (Podman service)', () => {
  let podman: PodmanService
  let conn: DockerConnection
  let image: string
  const tmp = makeTempDir('ralph-docker-test-')
  const log = memoryLogger()
  // The engine's storage outlives the run (the image is cached): this run's containers carry labels of their own.
  const runId = randomUUID().slice(0, 8)

  beforeAll(async () => {
    podman = await startPodman()
    conn = connectDocker({ DOCKER_HOST: podman.dockerHost })
    image = await ensureLocalWorkerImage(podman.docker)
  })

  afterAll(async () => {
    await podman?.stop()
    tmp.cleanup()
  })

  const folder = (name: string, files: Record<string, string> = {}): string => {
    const dir = join(tmp.path, name)
    mkdirSync(dir, { recursive: true })
    for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text)
    return dir
  }

  /** The container a job runs in, found by a label of the test's own (runContainerJob does not hand it out). */
  const containerLabelled = async (label: string) => {
    const filters = { label: [`test.run=${runId}-${label}`] }
    const [c] = await conn.docker.listContainers({ all: true, filters })
    return c ? conn.docker.getContainer(c.Id) : null
  }

  it('puts the job in, streams its lines while it runs, takes the result out and removes the container', async () => {
    const input = folder('in-1', { 'task.json': '{"task":7}' })
    const output = folder('out-1')
    const gate = folder('gate-1', { go: '' })
    const lines: string[] = []
    // The job waits for a file the test puts in only after its first line arrived: the line came while it ran.
    const script = `
      const fs = require('fs')
      const task = JSON.parse(fs.readFileSync('/job/task.json', 'utf8'))
      console.log(JSON.stringify({ type: 'job.started', task: task.task, key: process.env.MODEL_KEY }))
      console.error('a note on stderr')
      const wait = setInterval(() => {
        if (!fs.existsSync('/tmp/gate/go')) return
        clearInterval(wait)
        fs.mkdirSync('/result/logs', { recursive: true })
        fs.writeFileSync('/result/answer.txt', 'task ' + task.task + ' done')
        fs.writeFileSync('/result/logs/transcript.ndjson', '{"n":1}\\n')
        console.log(JSON.stringify({ type: 'job.finished', git: require('child_process').execFileSync('git', ['--version'], { encoding: 'utf8' }).trim() }))
      }, 50)`
    const outcome = await runContainerJob(conn, {
      image,
      command: ['node', '-e', script],
      env: { MODEL_KEY: 'sk-test-123' },
      input: { fromDir: input, to: '/job' },
      output: { from: '/result', intoDir: output },
      limits: { wallTimeMs: 60_000 },
      network: 'none',
      labels: { 'test.run': `${runId}-stream` },
      onLine: (line, stream) => {
        lines.push(`${stream}: ${line}`)
        if (line.includes('job.started'))
          void (async () => {
            const c = await containerLabelled('stream')
            const packed = await packFolder(gate, 'gate')
            await Promise.all([c!.putArchive(packed.stream, { path: '/tmp' }), packed.done])
          })()
      },
      log,
    })
    expect(outcome).toMatchObject({ ended: 'exited', exitCode: 0, outputCopied: true, kept: false })
    expect(lines[0]).toBe('stdout: {"type":"job.started","task":7,"key":"sk-test-123"}')
    expect(lines).toContain('stderr: a note on stderr')
    expect(lines.at(-1)).toMatch(/^stdout: \{"type":"job.finished","git":"git version \d/)
    expect(readFileSync(join(output, 'answer.txt'), 'utf8')).toBe('task 7 done')
    expect(readFileSync(join(output, 'logs/transcript.ndjson'), 'utf8')).toBe('{"n":1}\n')
    expect(await containerLabelled('stream')).toBeNull()
    expect(log.lines).toEqual([])
  })

  it("applies the limits (the container's HostConfig and its cgroup) and keeps a failed job's container until cleaned", async () => {
    const limits = { cpus: 0.5, memoryBytes: 128 * 1024 ** 2, pids: 48, wallTimeMs: 60_000 }
    const lines: string[] = []
    const outcome = await runContainerJob(conn, {
      image,
      command: ['node', '-e', `console.log(${PIDS_MAX}); process.exit(3)`],
      limits,
      network: 'none',
      labels: { 'test.run': `${runId}-limits` },
      onLine: (line) => lines.push(line),
      log,
    })
    expect(outcome).toMatchObject({ ended: 'exited', exitCode: 3, kept: true, outputCopied: false })
    expect(lines).toEqual(['48'])
    const info = await conn.docker.getContainer(outcome.containerId).inspect()
    expect(info.HostConfig).toMatchObject({
      NanoCpus: 500_000_000,
      Memory: 128 * 1024 ** 2,
      PidsLimit: 48,
      NetworkMode: 'none',
    })
    expect(info.Config.Labels[WORKER_LABEL]).toBe('1')
    expect(await cleanKeptContainers(conn, { 'test.run': `${runId}-limits` })).toEqual([outcome.containerId])
    expect(await containerLabelled('limits')).toBeNull()
  })

  it('kills a job at its wall time (kept as a failure) and stops one through its signal (removed)', async () => {
    const started = Date.now()
    const late = await runContainerJob(conn, {
      image,
      command: ['node', '-e', 'console.log("working"); setInterval(() => {}, 1000)'],
      limits: { wallTimeMs: 1500 },
      network: 'none',
      labels: { 'test.run': `${runId}-late` },
      log,
    })
    expect(late).toMatchObject({ ended: 'timed-out', exitCode: null, kept: true })
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500)
    expect((await conn.docker.getContainer(late.containerId).inspect()).State.Running).toBe(false)

    const stop = new AbortController()
    const stopped = await runContainerJob(conn, {
      image,
      command: ['node', '-e', 'console.log("working"); setInterval(() => {}, 1000)'],
      limits: { wallTimeMs: 60_000 },
      network: 'none',
      labels: { 'test.run': `${runId}-stopped` },
      onLine: (line) => line === 'working' && stop.abort(),
      signal: stop.signal,
      log,
    })
    expect(stopped).toMatchObject({ ended: 'cancelled', exitCode: null, kept: false })
    expect(await containerLabelled('stopped')).toBeNull()
    expect(await cleanKeptContainers(conn, { 'test.run': `${runId}-late` })).toEqual([late.containerId])
  })

  it('reaches an engine over tcp:// as well as over its socket', async () => {
    const overTcp = await startPodman({ tcp: true })
    try {
      const viaTcp = connectDocker({ DOCKER_HOST: overTcp.dockerHost })
      expect(viaTcp.target).toMatchObject({ kind: 'tcp', host: '127.0.0.1', tls: null })
      const version = await viaTcp.docker.version()
      expect(version.Components?.map((c) => c.Name)).toContain('Podman Engine')
      expect((await viaTcp.docker.getImage(image).inspect()).Id).toMatch(/^sha256:|^[0-9a-f]{64}$/)
    } finally {
      await overTcp.stop()
    }
  })

  it('an engine that cannot be reached is one sentence naming DOCKER_HOST, from the runner and from the CLI', async () => {
    const nowhere = connectDocker({ DOCKER_HOST: 'tcp://127.0.0.1:1' })
    const error = await runContainerJob(nowhere, {
      image,
      command: ['true'],
      limits: { wallTimeMs: 1000 },
      log,
    }).catch((err: unknown) => err)
    expect(isAppError(error, 'config')).toBe(true)
    expect((error as Error).message).toBe(
      'The Docker engine at http://127.0.0.1:1 (DOCKER_HOST) cannot be reached: nothing listens there. To use it, ' +
        'start Docker (or `podman system service`) there, or set DOCKER_HOST to the engine (unix://, tcp:// or ssh://).',
    )
    const cli = await runCli(['workers', 'test', '--image', image], {
      env: { DOCKER_HOST: `unix://${join(tmp.path, 'no-engine.sock')}` },
    })
    expect(cli.code).toBe(5)
    expect(cli.stdout.trim().split('\n')).toEqual([
      `✗ The Docker engine at the socket ${join(tmp.path, 'no-engine.sock')} (DOCKER_HOST) cannot be reached: ` +
        'nothing is at that path. To use it, start Docker (or `podman system service`) there, or set DOCKER_HOST ' +
        'to the engine (unix://, tcp:// or ssh://).',
    ])
  })

  it('ralph workers test: green on the engine with the image, red with one sentence when the image is missing', async () => {
    const green = await runCli(['workers', 'test', '--image', image], {
      env: { DOCKER_HOST: podman.dockerHost },
    })
    expect(green.stderr).toBe('')
    expect(green.code).toBe(0)
    expect(green.stdout).toMatch(/^✓ Podman \S+ \(API [\d.]+\) at \//m)
    expect(green.stdout).toContain(`✓ Image ${image} (`)
    expect(green.stdout).toMatch(/^✓ No-op job: node v20\.\d+\.\d+, git \d+\.\d+/m)
    expect(green.stdout).toMatch(/Docker workers are ready\.\n$/)

    const missing = await runCli(['workers', 'test', '--json'], {
      env: { DOCKER_HOST: podman.dockerHost, RALPH_WORKER_IMAGE: 'localhost/ralph-worker-missing:1' },
    })
    expect(missing.code).toBe(5)
    const report = JSON.parse(missing.stdout) as { ok: boolean; failed: string; problem: string }
    expect(report).toMatchObject({ ok: false, failed: 'image' })
    // Not on the engine: pulled from its registry first, which nobody serves here (no registry is reachable).
    expect(report.problem).toMatch(
      new RegExp(
        `^The image localhost/ralph-worker-missing:1 is not on the engine at ${podman.dockerHost.replace('unix://', '')} ` +
          'and could not be pulled \\(.*(connection refused|dial tcp|pinging container registry).*\\): build it with ' +
          '`npm run worker:image` \\(docker/worker\\.Dockerfile\\) and push it where the engine can pull it, or name ' +
          'the image to use with --image\\.$',
      ),
    )

    // An image whose job cannot do its work: the local image without git (a container of it, committed).
    const c = await podman.docker.createContainer({
      Image: image,
      Cmd: ['node', '-e', 'require("fs").unlinkSync("/usr/bin/git")'],
      HostConfig: { NetworkMode: 'none' },
    })
    await c.start()
    expect(await c.wait()).toMatchObject({ StatusCode: 0 })
    await c.commit({ repo: 'localhost/ralph-worker-nogit', tag: runId })
    await c.remove()
    const broken = await runCli(['workers', 'test', '--image', `localhost/ralph-worker-nogit:${runId}`], {
      env: { DOCKER_HOST: podman.dockerHost },
    })
    expect(broken.code).toBe(4)
    expect(broken.stdout.trim().split('\n').at(-1)).toBe(
      `✗ The no-op job in localhost/ralph-worker-nogit:${runId} failed: git is not in the image (jobs need git ` +
        'for their bundles).',
    )
    await podman.docker.getImage(`localhost/ralph-worker-nogit:${runId}`).remove()
  })
})
