// `ralph build --workers docker` through the real CLI against a real engine (Podman's Docker-compatible service with
// runc), the worker image built here from the host's node, git and the bundled CLI (no registry), and the fake model
// server on the host network. Each lane's task runs in a container as `ralph worker`; the result comes back as a
// checked bundle and is verified and merged on this machine. A worker killed mid-job and a corrupted result bundle
// fail their task with the reason, and nothing of them is merged.
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ensureLocalWorkerImage } from '../../../scripts/worker-image-local'
import { addTask, setSpec } from '../../../src/main/queue'
import { storePaths } from '../../../src/main/snapshots'
import { cleanKeptContainers, WORKER_LABEL } from '../../../src/main/workers/docker'
import { packFolder } from '../../../src/main/workers/dockerArchive'
import { connectDocker } from '../../../src/main/workers/dockerClient'
import { LANE_LABEL } from '../../../src/main/workers/dockerLane'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { runCli } from '../../helpers/cli'
import { podmanSkipReason, startPodman, type PodmanService } from '../../helpers/podman'
import { makeTempDir } from '../../helpers/tempDir'
import { say } from '../loop/harness'
import { CHECK_SCRIPT, cliEnv, ndjson, writeAttempt } from '../build/buildCliFixture'

if (podmanSkipReason) console.log(`Docker-build tests skipped: ${podmanSkipReason}.`)

const options = { logger: memoryLogger() }
const KEY = 'sk-docker-worker-key-0123456789'

type Event = {
  type: string
  where?: string
  retryOf?: { where: string; fault: string }
  lane?: number | null
  taskId?: string
  task?: number
  status?: string
  message?: string
}

/**
 * The worker image with a `ralph` that damages its result bundle after the real worker wrote it (the bytes of its
 * pack, as a disk or a network would): made by committing a container of the image with that one file replaced.
 */
async function faultyImage(podman: PodmanService, image: string, dir: string): Promise<string> {
  const bin = join(dir, 'bin')
  mkdirSync(bin, { recursive: true })
  const damage = `const fs = require('fs'); const f = '/result/result.bundle'; if (fs.existsSync(f)) { const b = fs.readFileSync(f); const i = b.indexOf('PACK'); b.fill(0x41, i + 40, i + 60); fs.writeFileSync(f, b) }`
  writeFileSync(
    join(bin, 'ralph'),
    `#!/bin/sh\nnode /opt/ralph/out/node/cli.js "$@"\ncode=$?\nnode -e "${damage}"\nexit $code\n`,
  )
  chmodSync(join(bin, 'ralph'), 0o755)
  const container = await podman.docker.createContainer({ Image: image, Cmd: ['true'] })
  try {
    const packed = await packFolder(bin, 'bin')
    await Promise.all([container.putArchive(packed.stream, { path: '/usr/local' }), packed.done])
    const repo = `localhost/ralph-worker-faulty`
    const tag = image.split(':').pop()!
    await container.commit({ repo, tag })
    return `${repo}:${tag}`
  } finally {
    await container.remove({ force: true })
  }
}

describe.skipIf(podmanSkipReason !== null)(
  'ralph build --workers docker (Podman service)',
  { timeout: 300_000 },
  () => {
    let podman: PodmanService
    let image: string
    let llm: FakeLlmServer
    let project: ReturnType<typeof makeTempDir>
    let home: ReturnType<typeof makeTempDir>
    let env: NodeJS.ProcessEnv

    beforeAll(async () => {
      ;[podman, llm] = await Promise.all([startPodman(), startFakeLlmServer()])
      image = await ensureLocalWorkerImage(podman.docker)
    })
    afterAll(async () => {
      if (podman) await cleanKeptContainers(connectDocker({ DOCKER_HOST: podman.dockerHost }), {})
      await podman?.stop()
      llm?.close()
    })
    beforeEach(async () => {
      llm.reset()
      llm.fallback = say('Nothing more.')
      project = makeTempDir('ralph-docker-build-')
      home = makeTempDir('ralph-home-')
      env = { ...cliEnv(home.path, llm.baseUrl), RALPH_API_KEY: KEY, DOCKER_HOST: podman.dockerHost }
      writeFileSync(join(project.path, 'check.cjs'), CHECK_SCRIPT)
      writeFileSync(join(project.path, 'spec.md'), '# Files\n')
      await setSpec({ projectDir: project.path, spec: 'spec.md', options })
    })
    afterEach(() => {
      project.cleanup()
      home.cleanup()
    })

    const notes = (file: string, want: string) => `Write the word ${want} into ${file} and nothing else.`
    const add = async (file: string, want: string) =>
      (
        await addTask({
          projectDir: project.path,
          name: `Write ${file}`,
          notes: notes(file, want),
          accept: [`DET: \`node check.cjs ${file} ${want}\` exits 0`],
          options,
        })
      ).ids[0]!
    const script = (file: string, want: string) =>
      llm.route((r) => JSON.stringify(r.body).includes(notes(file, want)), ...writeAttempt(file, want))
    const useImage = (workerImage: string, more: object = {}) => {
      const file = join(project.path, '.ralph', 'config.json')
      const config = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as object) : {}
      // The fake model listens on the host's 127.0.0.1: the containers share the host's network.
      const workers = {
        backend: 'docker',
        image: workerImage,
        network: 'host',
        cpus: 1,
        memoryMb: 1024,
        ...more,
      }
      writeFileSync(file, JSON.stringify({ ...config, workers }))
    }
    const build = async (...flags: string[]) => {
      const result = await runCli(['build', '--json', ...flags, '--project', project.path], { env })
      return { result, events: ndjson<Event>(result.stdout) }
    }
    const storeTags = () =>
      execFileSync('git', [`--git-dir=${storePaths(project.path).gitDir}`, 'tag', '--list'], {
        encoding: 'utf8',
      })
        .split('\n')
        .filter(Boolean)
    const chats = () => llm.requests.filter((r) => r.path === '/v1/chat/completions')

    it('runs four tasks in four containers at once; each is verified here and merged into the timeline', async () => {
      const files = [
        ['a.txt', 'alpha'],
        ['b.txt', 'beta'],
        ['c.txt', 'gamma'],
        ['d.txt', 'delta'],
      ] as const
      for (const [file, want] of files) {
        await add(file, want)
        script(file, want)
      }
      useImage(image)
      const started = Date.now()
      const { result, events } = await build('--parallel', '4', '--workers', 'docker')
      const tookMs = Date.now() - started
      expect(result.code, result.stderr + result.stdout.slice(-3000)).toBe(0)
      expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'complete' })
      for (const [file, want] of files)
        expect(readFileSync(join(project.path, file), 'utf8')).toBe(`${want}\n`)

      // Four lanes at once, each task's loop events streamed from its container, tagged with its lane.
      const lanes = events.filter((e) => e.type === 'build.lane').map((e) => e.lane)
      expect(new Set(lanes)).toEqual(new Set([1, 2, 3, 4]))
      // Each lane's attempt says where it runs: the engine behind a socket is this machine's.
      const placed = events.filter((e) => e.type === 'build.worker')
      expect(placed.map((e) => [e.where, e.retryOf])).toEqual(Array(4).fill(['docker: local', undefined]))
      for (const lane of [1, 2, 3, 4]) {
        const types = events.filter((e) => e.lane === lane).map((e) => e.type)
        expect(types).toEqual(expect.arrayContaining(['task.started', 'tool.called', 'task.completed']))
        // The verification ran here (the worker never verifies: its stream has no verify.* event).
        expect(types.filter((t) => t.startsWith('verify.')).length).toBeGreaterThan(0)
      }
      expect(events.filter((e) => e.type.startsWith('worker.'))).toEqual([])
      // The model was reached from the containers with the key of their environment (parse + iteration per task).
      expect(chats().length).toBe(8)
      expect(chats().every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true)
      // The timeline reads as a serial build.
      const tags = storeTags()
      for (const n of [1, 2, 3, 4])
        expect(tags).toEqual(expect.arrayContaining([`task-${n}-pre`, `task-${n}-post`]))
      // Containers are removed after a job that ended well.
      const left = await podman.docker.listContainers({
        all: true,
        filters: { label: [WORKER_LABEL, LANE_LABEL] },
      })
      expect(left).toEqual([])
      console.log(`4 tasks in 4 containers: ${tookMs} ms`)
    })

    it('retries a task whose result bundle comes back corrupted, then fails it saying both, merging nothing', async () => {
      const id = await add('a.txt', 'alpha')
      script('a.txt', 'alpha')
      llm.route(
        (r) => JSON.stringify(r.body).includes(notes('a.txt', 'alpha')),
        ...writeAttempt('a.txt', 'alpha'),
      )
      useImage(await faultyImage(podman, image, join(home.path, 'faulty')))
      const { result, events } = await build('--workers', 'docker')
      expect(result.code).not.toBe(0)
      const finished = events.at(-1)!
      expect(finished).toMatchObject({ type: 'build.finished', status: 'failed' })
      const placed = events.filter((e) => e.type === 'build.worker')
      expect(placed.map((e) => e.where)).toEqual(['docker: local', 'docker: local'])
      expect(placed[1]!.retryOf!.fault).toMatch(/was refused: The worker's result bundle/)
      expect(result.stdout + result.stderr).toMatch(
        new RegExp(
          `${id} could not run in lane 1: Lane 1's worker failed twice, and nothing of either attempt was merged: first on docker: local it sent back a result that failed its checks \\(Lane 1's worker result from the container [0-9a-f]{12} on docker: .* \\(exit 0\\) was refused: The worker's result bundle \\(result.bundle\\) could not be unpacked.*; then on docker: local it sent back a result that failed its checks`,
        ),
      )
      expect(existsSync(join(project.path, 'a.txt'))).toBe(false)
      expect(storeTags().filter((t) => t.startsWith('task-') && t.endsWith('-post'))).toEqual([])
    })

    it('retries a task whose worker is killed mid-job, and fails it when the retry is killed too', async () => {
      const id = await add('a.txt', 'alpha')
      // The worker's first model call never answers: the task is under way when its container is killed.
      llm.route((r) => JSON.stringify(r.body).includes(notes('a.txt', 'alpha')), { kind: 'hang' })
      // A vault secret ticked for remote workers goes into the job's environment; the unticked one never leaves.
      for (const [name, value] of [
        ['TICKED', 'ticked-vault-value-0123456789'],
        ['UNTICKED', 'unticked-vault-value-0123456789'],
      ])
        expect((await runCli(['mcp', 'secret', name!, '--value', value!], { env })).code).toBe(0)
      useImage(image, { remoteSecrets: ['TICKED'] })
      const running = build('--workers', 'docker')
      const killed = new Set<string>()
      for (const attempt of [1, 2]) {
        const deadline = Date.now() + 120_000
        const asked = () =>
          chats().filter((r) => JSON.stringify(r.body).includes(notes('a.txt', 'alpha'))).length
        while (asked() < attempt) {
          expect(Date.now(), `worker ${attempt} never called the model`).toBeLessThan(deadline)
          await new Promise((r) => setTimeout(r, 50))
        }
        const list = (await podman.docker.listContainers({ filters: { label: [LANE_LABEL] } })).filter(
          (c) => !killed.has(c.Id),
        )
        expect(list.length).toBe(1)
        killed.add(list[0]!.Id)
        await podman.docker.getContainer(list[0]!.Id).kill()
      }
      const { result, events } = await running
      expect(result.code).not.toBe(0)
      expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'failed' })
      const placed = events.filter((e) => e.type === 'build.worker')
      expect(placed[1]!.retryOf).toEqual({
        where: 'docker: local',
        fault: expect.stringMatching(/ended \(exit 137: killed\) without a result; nothing of it was merged/),
      })
      expect(result.stdout + result.stderr).toMatch(
        new RegExp(
          `${id} could not run in lane 1: Lane 1's worker failed twice.*first on docker: local it died before it finished \\(Lane 1's worker in the container [0-9a-f]{12} .*\\(exit 137: killed\\) without a result.* kept on the engine.*then on docker: local it died before it finished`,
        ),
      )
      expect(existsSync(join(project.path, 'a.txt'))).toBe(false)
      expect(storeTags().filter((t) => t.startsWith('task-') && t.endsWith('-post'))).toEqual([])
      // Both killed containers are kept for a look: their environment holds the ticked secret and the key only.
      for (const id of killed) {
        const envs = (await podman.docker.getContainer(id).inspect()).Config.Env
        expect(envs).toContain('RALPH_SECRET_TICKED=ticked-vault-value-0123456789')
        expect(envs).toContain(`RALPH_API_KEY=${KEY}`)
        expect(envs.join('\n')).not.toContain('unticked-vault-value')
      }
    })

    it('fails a task whose engine cannot be reached, saying which', async () => {
      const id = await add('a.txt', 'alpha')
      useImage(image)
      env.DOCKER_HOST = `unix://${join(home.path, 'no-engine.sock')}`
      const { result, events } = await build('--workers', 'docker')
      expect(result.code).not.toBe(0)
      expect(events.at(-1)).toMatchObject({ type: 'build.finished', status: 'failed' })
      expect(events.at(-1)!.message).toMatch(
        new RegExp(
          `^${id} could not run in lane 1: Lane 1's worker failed twice.*could not be reached.*no-engine\\.sock`,
        ),
      )
      expect(chats()).toEqual([])
      expect(existsSync(join(project.path, 'a.txt'))).toBe(false)
    })
  },
)
