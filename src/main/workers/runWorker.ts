// `ralph worker` (issue #39): one job run anywhere the CLI runs. The job's base bundle is unpacked into a scratch
// project's snapshot store, a lane is made from it exactly as a local lane is (createLane), and the task runs in it
// through runInLane — the same loop, setup, sandbox and snapshots as a local lane. What comes back is the task's
// snapshots as a bundle based on the job's base, the transcript of its events, and result.json. The worker never
// verifies: the coordinator does, with its own nonce.
import { mkdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import type { LoopEvent } from '../../shared/loopEvents'
import { workerFiles, type WorkerEvent, type WorkerJob } from '../../shared/workerJob'
import { createLane, runInLane, tagLane, type Lane, type LaneRunResult } from '../lanes'
import type { ModelConfig } from '../llm'
import { RalphState } from '../loop'
import { allowUnsandboxed, sandboxSupport, type SandboxSupport } from '../sandbox'
import { ApiKeys, type SecretVault } from '../secrets'
import { ShadowGit, SnapshotEngine, storePaths } from '../snapshots'
import { ProjectsRepo, RunsRepo, type Db } from '../store'
import { ifMissing, ralphPath, writeFileAtomic, type Logger } from '../workspace'
import { unbundle } from './bundle'
import { BASE_REF } from './createJob'
import { unpackJobTar } from './jobArchive'
import { readJob } from './readJob'
import { makeOutFolder, writeWorkerResult, type WrittenResult } from './writeResult'
import { workerMcpServers, withoutRemoteSecrets } from './workerMcp'
import { workerSandbox, type WorkerSandbox } from './workerSandbox'

/** What a worker streams: the loop's events and its own, each with its lane (as `ralph build --json`). */
export type WorkerStreamEvent = (LoopEvent | WorkerEvent) & { lane: number | null }

export interface RunWorkerInput {
  /** The job: its folder (job.json + base.bundle), or one tar file of the two. */
  jobPath: string
  /** Where the result goes (absent or empty). */
  outDir: string
  /** A scratch folder of the worker's own (the host made it): the project, the lane and the app data live there. */
  workDir: string
  /** The worker's database, in `appDataDir(workDir)` (the host opened it: domain modules do not open databases). */
  db: Db
  /** The worker's environment: the model's key comes only from here (RALPH_API_KEY, or the provider's variable). */
  env: NodeJS.ProcessEnv
  signal: AbortSignal
  emit(event: WorkerStreamEvent): void
  logger: Logger
  /** The probe's answer; tests may give their own. */
  support?: SandboxSupport
}

/** The worker's app data folder inside its scratch folder (the lanes and the database; hidden from commands). */
export const workerAppData = (workDir: string): string => join(workDir, 'app-data')
const workerProject = (workDir: string): string => join(workDir, 'project')

/** Events that are for people only (streamed text, retries), as `ralph build --json` leaves them out. */
const QUIET = new Set(['llm.delta', 'llm.retry'])

export async function runWorker(input: RunWorkerInput): Promise<WrittenResult> {
  const jobDir = (await stat(input.jobPath).catch(ifMissing(null)))?.isFile()
    ? await unpackJobTar(input.jobPath, join(input.workDir, 'job'))
    : input.jobPath
  const { job, bundleFile } = await readJob(jobDir, input.logger)
  await makeOutFolder(input.outDir)
  const n = job.lane.number
  const projectDir = workerProject(input.workDir)
  const appDataDir = workerAppData(input.workDir)
  await mkdir(projectDir, { recursive: true, mode: 0o700 })
  await mkdir(appDataDir, { recursive: true, mode: 0o700 })
  await unpackBase(projectDir, bundleFile, job, input.logger)
  const lane = await createLane({
    appDataDir,
    projectId: 'worker',
    projectDir,
    lane: n,
    task: job.task.number,
    base: job.base.commit,
    logger: input.logger,
  })
  const sandbox = workerSandbox(input.support ?? (await sandboxSupport()))
  // The container is the sandbox: the lane's commands may run without bubblewrap (the permission lives in the
  // worker's own app data, for this lane's folder only).
  if (sandbox.kind === 'container') await allowUnsandboxed(lane.workDir, appDataDir)
  const transcript: string[] = []
  const emit = (event: LoopEvent | WorkerEvent) => {
    if (QUIET.has(event.type)) return
    const tagged = tagLane(event, n) as WorkerStreamEvent
    transcript.push(JSON.stringify(tagged))
    input.emit(tagged)
  }
  emit({
    type: 'worker.started',
    task: job.task.number,
    lane: n,
    base: job.base.commit,
    sandbox: sandbox.kind,
  })
  if (sandbox.kind === 'container')
    emit({ type: 'worker.sandbox', lane: n, sandbox: 'container', message: sandbox.message })
  const run = await runJobInLane({ input, job, lane, projectDir, appDataDir, emit })
  const written = await writeWorkerResult({
    projectDir,
    outDir: input.outDir,
    job,
    run,
    sandbox: sandbox.kind,
    transcript: () => transcript,
    logger: input.logger,
    onFinished: (status, message) =>
      emit({
        type: 'worker.finished',
        task: job.task.number,
        lane: n,
        status,
        message,
        pre: run.preCommit,
        post: run.postCommit,
      }),
  })
  return written
}

/** The scratch project: a snapshot store holding the base (refs/ralph/base), and the lane's setup in its config. */
async function unpackBase(
  projectDir: string,
  bundleFile: string,
  job: WorkerJob,
  logger: Logger,
): Promise<void> {
  await new SnapshotEngine({ projectDir, logger }).init()
  const git = new ShadowGit(storePaths(projectDir).gitDir, projectDir)
  const refs = await unbundle(git, bundleFile, `The job's base bundle (${workerFiles.baseBundle})`)
  if (refs.get(BASE_REF) !== job.base.commit)
    throw new AppError('invalid-input', `The job's base bundle did not hold the base ${job.base.commit}.`)
  await git.run(['update-ref', BASE_REF, job.base.commit])
  // runInLane reads the setup from the project's config, as a local lane's build does from the user's project.
  const file = ralphPath(projectDir, 'config')
  const raw = await readFile(file, 'utf8').catch(ifMissing(''))
  const config = raw.trim() ? (JSON.parse(raw) as Record<string, unknown>) : {}
  await writeFileAtomic(
    file,
    JSON.stringify({ ...config, lanes: job.lane.setup ? { setup: job.lane.setup } : {} }, null, 2) + '\n',
  )
}

/** The vault of a worker: empty. Keys come from the environment only; nothing is ever stored. */
const noVault: SecretVault = {
  kind: 'file',
  get: () => null,
  set: () => {
    throw new AppError('internal', 'A worker stores no secret.')
  },
  delete: () => undefined,
}

function withKey(model: WorkerJob['model'], keys: ApiKeys): ModelConfig | null {
  return model ? { ...model, apiKey: keys.resolve(model.provider) } : null
}

async function runJobInLane(a: {
  input: RunWorkerInput
  job: WorkerJob
  lane: Lane
  projectDir: string
  appDataDir: string
  emit(event: LoopEvent): void
}): Promise<LaneRunResult> {
  const { input, job, lane } = a
  // As the lanes build does before its runInLane: the lane starts with no previous task to describe (the build
  // writes the merged task's history line itself).
  const state = new RalphState(lane.workDir)
  await state.write('summary', '')
  await state.write('task', '')
  const keys = new ApiKeys(input.db, noVault, input.env)
  const mcpServers = await workerMcpServers(input.db, job.mcpServers, a.projectDir, input.env)
  const projectId = new ProjectsRepo(input.db).upsert(a.projectDir, job.project.name, Date.now()).id
  return runInLane({
    lane,
    task: job.task.number,
    projectDir: a.projectDir,
    projectId,
    message: job.task.message,
    ...(job.task.context !== null ? { taskContext: job.task.context } : {}),
    feedback: job.task.feedback,
    model: withKey(job.model, keys),
    fastModel: withKey(job.fastModel, keys),
    ...(job.settings.maxIterations !== null ? { maxIterations: job.settings.maxIterations } : {}),
    ...(job.settings.engine !== null ? { engine: job.settings.engine } : {}),
    waitForLimits: job.settings.waitForLimits,
    signal: input.signal,
    runs: new RunsRepo(input.db),
    // The worker's app data is where the sandbox looks (its permission, the folder it hides).
    env: { ...withoutRemoteSecrets(input.env), RALPH_HOME: a.appDataDir },
    mcpServers,
    logger: input.logger,
    emit: a.emit,
  })
}

export type { WorkerSandbox }
