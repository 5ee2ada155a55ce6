// Making a job (issue #39): a folder with job.json and base.bundle, the lane's base snapshot from the project's
// store. The bundle is made in a scratch store borrowing the project's objects: the project's store gets no ref.
import { mkdir, readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import {
  WORKER_JOB_VERSION,
  workerFiles,
  type JobMcpServer,
  type ModelEndpoint,
  type WorkerJob,
} from '../../shared/workerJob'
import { readLanesConfig } from '../lanes'
import type { ModelConfig } from '../llm'
import { ShadowGit, storeLooksComplete, storePaths } from '../snapshots'
import { ifMissing, writeFileAtomic, type Logger } from '../workspace'
import { COMMIT_ID, createBundle, withScratchStore } from './bundle'
import { parseJobText } from './jobFormat'
import { refuseSecretsIn } from './jobSecrets'

/** The ref that names the base in a job's bundle. */
export const BASE_REF = 'refs/ralph/base'

export interface CreateJobInput {
  /** The user's project: its snapshot store holds the base. */
  projectDir: string
  /** The job folder to make (absent or empty). */
  out: string
  /** A snapshot tag or commit of the project's store: the lane's base. */
  base: string
  task: WorkerJob['task']
  lane: number
  /** The lane's setup command; absent: the project's `lanes.setup`. */
  setup?: string | null
  settings: WorkerJob['settings']
  /** Where the model is. A key is refused: it reaches the worker only as its environment. */
  model: ModelEndpoint | null
  fastModel?: ModelEndpoint | null
  /** The MCP servers the task gets (jobMcp.ts), placeholders unfilled. */
  mcpServers?: JobMcpServer[]
  /** Secrets of this machine that must not be in the job's text (the model's key, the vault's values). */
  secrets?: readonly (string | null | undefined)[]
  logger: Logger
  now?: () => number
}

export interface CreatedJob {
  dir: string
  job: WorkerJob
  jobFile: string
  bundleFile: string
}

export async function createJob(input: CreateJobInput): Promise<CreatedJob> {
  for (const [name, m] of [
    ['model', input.model],
    ['fastModel', input.fastModel],
  ] as const)
    refuseKeyField(name, m)
  const { gitDir } = storePaths(input.projectDir)
  if (!storeLooksComplete(gitDir))
    throw new AppError('not-found', `${input.projectDir} has no snapshot store yet: take a snapshot first.`)
  const base = await resolveCommit(new ShadowGit(gitDir, input.projectDir), input.base)
  const setup = input.setup !== undefined ? input.setup : (await readLanesConfig(input.projectDir)).setup
  const job: WorkerJob = {
    ralph: 'worker-job',
    version: WORKER_JOB_VERSION,
    createdAt: (input.now ?? Date.now)(),
    project: { name: input.projectDir.split(/[\\/]/).filter(Boolean).pop() ?? 'project' },
    base: { commit: base, bundle: workerFiles.baseBundle },
    task: input.task,
    settings: input.settings,
    lane: { number: input.lane, setup: setup ?? null },
    model: input.model,
    fastModel: input.fastModel ?? null,
    mcpServers: input.mcpServers ?? [],
  }
  const text = JSON.stringify(job, null, 2) + '\n'
  // The same checks a worker makes (a job it would refuse is never written), then no secret in any text field.
  const checked = parseJobText(text, workerFiles.job)
  await refuseSecretsIn(text, input.secrets ?? [])
  await makeEmptyFolder(input.out)
  const bundleFile = join(input.out, workerFiles.baseBundle)
  await withScratchStore(gitDir, input.logger, async (git) => {
    await git.run(['update-ref', BASE_REF, base])
    await createBundle(git, bundleFile, [BASE_REF])
  })
  const jobFile = join(input.out, workerFiles.job)
  await writeFileAtomic(jobFile, text, 0o600)
  return { dir: input.out, job: checked, jobFile, bundleFile }
}

/** The endpoint of a model the coordinator runs with: provider, model, base URL — its key left behind. */
export function modelEndpoint(config: ModelConfig | null | undefined): ModelEndpoint | null {
  if (!config) return null
  return {
    provider: config.provider,
    model: config.model,
    baseUrl: config.baseUrl ?? null,
    localContextMax: config.localContextMax ?? null,
  }
}

/** A model endpoint with a key in it is refused by name: the key travels only as the worker's environment. */
function refuseKeyField(name: string, model: unknown): void {
  if (model === null || model === undefined || typeof model !== 'object') return
  const m = model as Record<string, unknown>
  for (const field of ['apiKey', 'key', 'token', 'secret'])
    if (field in m && m[field] !== null && m[field] !== undefined && m[field] !== '')
      throw new AppError(
        'invalid-input',
        `The job's ${name} holds a key ("${field}"): a job never carries one. Give the endpoint only (provider, ` +
          'model, base URL); the worker reads the key from its environment (RALPH_API_KEY, or the provider’s ' +
          'own variable such as OPENAI_API_KEY).',
      )
}

async function makeEmptyFolder(dir: string): Promise<void> {
  const st = await stat(dir).catch(ifMissing(null))
  if (st === null) {
    await mkdir(dir, { recursive: true, mode: 0o700 })
    return
  }
  if (!st.isDirectory() || (await readdir(dir)).length > 0)
    throw new AppError('invalid-input', `${dir} is not an empty folder: a job is written into a new one.`)
}

async function resolveCommit(git: ShadowGit, ref: string): Promise<string> {
  if (ref.startsWith('-') || ref.trim() === '')
    throw new AppError('invalid-input', `"${ref}" is not a snapshot tag or commit.`)
  const res = await git.run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { okCodes: [0, 1, 128] })
  const sha = res.stdout.toString('utf8').trim()
  if (res.code !== 0 || !COMMIT_ID.test(sha))
    throw new AppError('not-found', `The snapshot "${ref}" is not in this project's snapshot store.`)
  return sha
}
