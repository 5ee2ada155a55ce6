// The Kubernetes backend (issue #39) against tests/fixtures/fakeKube.ts: a Kubernetes cluster cannot run here, so an
// in-process fake of the Job, Pod, Pod-log and Secret APIs speaks the real wire shapes to the real
// @kubernetes/client-node, and "runs" a Job's pod by spawning its command on this machine — the real `ralph worker`
// from the CLI, against the fake model server, with the model key arriving only through the job's Secret.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SnapshotEngine } from '../../../src/main/snapshots'
import { createJob, fetchWorkerResult, packJobTar } from '../../../src/main/workers'
import { runKubernetesJob } from '../../../src/main/workers/kubernetes'
import { connectKube } from '../../../src/main/workers/kubernetesClient'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import { startFakeKube, type FakeKube } from '../../fixtures/fakeKube'
import { RALPH_BIN, runCli } from '../../helpers/cli'
import { makeTempDir } from '../../helpers/tempDir'
import { parsed, tools, useFakeLlmServer } from '../loop/harness'

const log = memoryLogger()
const server = useFakeLlmServer()
const KEY = 'sk-kube-secret-key-0123456789'
const TASK = 2

let tmp: ReturnType<typeof makeTempDir>
let kube: FakeKube
beforeEach(async () => {
  tmp = makeTempDir('ralph-kube-')
  kube = await startFakeKube({ commands: { ralph: [process.execPath, RALPH_BIN] } })
})
afterEach(async () => {
  await kube.close()
  tmp.cleanup()
})

const conn = () => connectKube({ kubeconfig: kube.kubeconfig })
const node = (script: string) => ['node', '-e', script]

describe('Kubernetes workers', { timeout: 120_000 }, () => {
  it('runs a job through `ralph worker` in a Job, the key only in its Secret; the result comes back through the log', async () => {
    const project = join(tmp.path, 'project')
    mkdirSync(project, { recursive: true })
    writeFileSync(join(project, 'a.txt'), 'a0\n')
    const engine = new SnapshotEngine({ projectDir: project, logger: log })
    await engine.init()
    await engine.save({ kind: 'task-post', task: 1 })
    const job = await createJob({
      projectDir: project,
      out: join(tmp.path, 'job'),
      base: 'task-1-post',
      task: {
        number: TASK,
        id: 't-a1',
        name: 'Write a1',
        message: 'Write a1 into a.txt',
        context: null,
        criteria: ['AC1 DET: a.txt says a1'],
        feedback: '',
        attempt: 1,
      },
      lane: 1,
      settings: { maxIterations: 3, engine: null, waitForLimits: false },
      model: {
        provider: 'openai-compatible',
        model: 'fake-model',
        baseUrl: server.llm.baseUrl,
        localContextMax: null,
      },
      secrets: [KEY],
      logger: log,
    })
    const tarFile = join(tmp.path, 'job.tar')
    await packJobTar(job.dir, tarFile)
    server.llm.enqueue(
      parsed({ type: 'mutation' }),
      tools(
        ['edit_file', { path: 'a.txt', old_string: 'a0', new_string: 'a1' }],
        ['mark_complete', { summary: 'a.txt says a1.' }],
      ),
    )
    // Built once here (bin/ralph.js builds out/node when it is stale), not inside the pod's time.
    expect((await runCli(['--version'])).code).toBe(0)

    const lines: string[] = []
    const resultDir = join(tmp.path, 'result')
    const outcome = await runKubernetesJob(conn(), {
      image: 'ralph-worker:node20',
      command: ['ralph', 'worker', '--job', '/job/job.tar', '--out', '/ralph/result', '--result-stdout'],
      env: { RALPH_PROVIDER: '', RALPH_MODEL: '', RALPH_BASE_URL: '' },
      secretEnv: { RALPH_API_KEY: KEY },
      jobInput: readFileSync(tarFile),
      resultDir,
      limits: { cpus: 1, memoryBytes: 1024 ** 3, wallTimeMs: 90_000 },
      labels: { 'dev.ralph-studio.task': String(TASK) },
      onLine: (l) => lines.push(l),
      log,
      pollMs: 100,
    })
    expect(outcome).toMatchObject({ ended: 'complete', exitCode: 0, resultTaken: true, problem: null })

    // The events were followed from the pod's log; the result's lines were taken out of them.
    const types = lines.map((l) => (JSON.parse(l) as { type: string }).type)
    expect(types[0]).toBe('worker.started')
    expect(types).toContain('task.completed')
    expect(types.at(-1)).toBe('worker.finished')

    // The key reached the model from the Secret; the Job's spec never held it, and both are gone.
    const chats = server.llm.requests.filter((r) => r.path === '/v1/chat/completions')
    expect(chats.length).toBeGreaterThan(0)
    expect(chats.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true)
    expect(JSON.stringify(kube.createdJobs)).not.toContain(KEY)
    expect(kube.createdJobs[0]!.spec).toMatchObject({ backoffLimit: 0, activeDeadlineSeconds: 90 })
    expect(Object.keys(kube.createdSecrets[0]!.data!).sort()).toEqual(['RALPH_API_KEY', 'job.tar'])
    expect(kube.jobs.size).toBe(0)
    expect(kube.secrets.size).toBe(0)
    expect(kube.calls).toContainEqual(
      expect.stringMatching(
        /^DELETE \/apis\/batch\/v1\/namespaces\/default\/jobs\/ralph-job-\w+\?propagationPolicy=Background$/,
      ),
    )
    expect(kube.calls).toContainEqual(
      expect.stringMatching(/^DELETE \/api\/v1\/namespaces\/default\/secrets\/ralph-job-/),
    )

    // The result passes the coordinator's integrity checks and lands as refs/lanes/1/*.
    const fetched = await fetchWorkerResult({ projectDir: project, resultDir, job: job.job, logger: log })
    expect(fetched.result).toMatchObject({ status: 'complete', task: TASK, lane: 1 })
    expect(fetched.post).toMatch(/^[0-9a-f]{40}$/)
    expect(readFileSync(fetched.transcriptFile, 'utf8').trim().split('\n')).toEqual(lines.filter(Boolean))
  })

  it('reports a job past its deadline and a failed pod in one sentence each, and deletes them', async () => {
    const late = await runKubernetesJob(conn(), {
      image: 'i',
      command: node('console.log("up"); setInterval(() => {}, 1000)'),
      limits: { wallTimeMs: 1000 },
      log,
      pollMs: 100,
    })
    expect(late).toMatchObject({ ended: 'deadline', resultTaken: false })
    expect(late.problem).toMatch(
      /^The Kubernetes job default\/ralph-job-\w+ ran past its deadline of 1 s and the cluster stopped it\.$/,
    )
    const failed = await runKubernetesJob(conn(), {
      image: 'i',
      command: node('console.error("boom"); process.exit(4)'),
      limits: { wallTimeMs: 30_000 },
      log,
      pollMs: 100,
    })
    expect(failed).toMatchObject({ ended: 'failed', exitCode: 4, logTail: 'boom' })
    expect(failed.problem).toMatch(
      /^The pod of the Kubernetes job default\/ralph-job-\w+ failed \(exit code 4\): boom$/,
    )
    expect(kube.jobs.size + kube.secrets.size + kube.running()).toBe(0)
  })

  it('Stop deletes the Job (its pod stops) and the Secret', async () => {
    const stop = new AbortController()
    const run = runKubernetesJob(conn(), {
      image: 'i',
      command: node('console.log("working"); setInterval(() => {}, 1000)'),
      secretEnv: { RALPH_API_KEY: KEY },
      limits: { wallTimeMs: 60_000 },
      onLine: (l) => l === 'working' && stop.abort(),
      signal: stop.signal,
      log,
      pollMs: 100,
    })
    await expect(run).rejects.toThrow(/The Kubernetes job was stopped/)
    expect(kube.jobs.size + kube.secrets.size + kube.running()).toBe(0)
  })

  it('`ralph workers test --workers kubernetes` runs a no-op job and says it is experimental; a missing context is one sentence', async () => {
    const env = { KUBECONFIG: kube.kubeconfig }
    const ok = await runCli(['workers', 'test', '--workers', 'kubernetes', '--image', 'node-image'], { env })
    expect(ok.stdout).toMatch(
      /^Kubernetes workers are experimental: they have not yet run on a real cluster\.\n/,
    )
    expect(ok.stdout).toContain('✓ Kubernetes v1.31.0-fake at http://127.0.0.1:')
    expect(ok.stdout).toMatch(/✓ No-op job: a Job and its Secret created and deleted; node v\d+/)
    expect(ok.stdout).toMatch(/Kubernetes workers are ready\.\n$/)
    expect(ok.code).toBe(0)
    expect(kube.createdJobs[0]!.spec!.template.spec!.containers[0]!.image).toBe('node-image')
    expect(kube.jobs.size + kube.secrets.size).toBe(0)
    const missing = await runCli(['workers', 'test', '--workers', 'kubernetes', '--context', 'prod'], { env })
    expect(missing.stderr).toMatch(/The kubeconfig has no context "prod" \(it has: fake\)/)
    expect(missing.code).toBe(5)
    const forbidden = await startFakeKube({ forbid: ['create jobs'] })
    try {
      const no = await runCli(['workers', 'test', '--workers', 'kubernetes', '--json'], {
        env: { KUBECONFIG: forbidden.kubeconfig },
      })
      expect(JSON.parse(no.stdout)).toMatchObject({ ok: false, failed: 'job', experimental: true })
      expect((JSON.parse(no.stdout) as { problem: string }).problem).toMatch(
        /may not do this .* \(403, creating the Job\)/,
      )
      expect(no.code).toBe(4)
    } finally {
      await forbidden.close()
    }
  })

  it('`ralph workers test` in a project checks its workers settings: backend, image, namespace, Docker host', async () => {
    const project = join(tmp.path, 'configured')
    const settings = (workers: object) => {
      mkdirSync(join(project, '.ralph'), { recursive: true })
      writeFileSync(join(project, '.ralph', 'config.json'), JSON.stringify({ workers }))
    }
    const env = { KUBECONFIG: kube.kubeconfig }
    settings({ backend: 'kubernetes', image: 'node-image', kubernetes: { namespace: 'nope' } })
    const missing = await runCli(['workers', 'test', '--project', project], { env })
    expect(missing.stdout + missing.stderr).toMatch(/The namespace nope does not exist/)
    expect(missing.code).not.toBe(0)
    settings({ backend: 'kubernetes', image: 'node-image' })
    const ok = await runCli(['workers', 'test', '--project', project], { env })
    expect(ok.stdout).toMatch(/Kubernetes workers are ready\.\n$/)
    expect(kube.createdJobs.at(-1)!.spec!.template.spec!.containers[0]!.image).toBe('node-image')
    settings({ backend: 'docker', dockerHost: 'tcp://127.0.0.1:1' })
    const docker = await runCli(['workers', 'test', '--project', project], { env: {} })
    expect(docker.stdout).toContain(
      'The Docker engine at http://127.0.0.1:1 ("dockerHost" in Settings → Workers)',
    )
    expect(docker.code).toBe(5)
  })

  it('an unreachable API, a missing namespace and a forbidden Secret are each one sentence', async () => {
    const closed = await startFakeKube()
    const kubeconfig = join(tmp.path, 'kubeconfig')
    writeFileSync(kubeconfig, readFileSync(closed.kubeconfig))
    await closed.close()
    const job = { image: 'i', command: ['true'], limits: { wallTimeMs: 5000 }, log }
    await expect(runKubernetesJob(connectKube({ kubeconfig }), job)).rejects.toThrow(
      /^The Kubernetes API at http:\/\/127\.0\.0\.1:\d+ cannot be reached \(nothing listens there, ECONNREFUSED\) while creating the Job/,
    )
    await expect(
      runKubernetesJob(connectKube({ kubeconfig: kube.kubeconfig, namespace: 'nope' }), job),
    ).rejects.toThrow(/^The namespace nope does not exist/)
    const strict = await startFakeKube({ forbid: ['create secrets'] })
    try {
      await expect(
        runKubernetesJob(connectKube({ kubeconfig: strict.kubeconfig }), { ...job, secretEnv: { K: 'v' } }),
      ).rejects.toThrow(
        /^The kubeconfig's user may not do this in the namespace default \(403, creating the job's Secret\)/,
      )
      expect(strict.jobs.size).toBe(0)
    } finally {
      await strict.close()
    }
  })
})
