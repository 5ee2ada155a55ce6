// The worker's result folder (issue #39): result.bundle with the task's snapshots, transcript.ndjson, result.json.
//
// Snapshot commits have no parent, so a bundle of them alone would carry their whole trees and say nothing about
// the base. The bundle therefore carries one more commit, `refs/lanes/N/result`, whose parents are the base, the
// task's pre and (when there is one) its post: bundled `--not <base>`, the base becomes the bundle's one
// prerequisite, only objects the base lacks travel, and a coordinator without that base cannot even unpack it.
import { mkdir, readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import { WORKER_JOB_VERSION, workerFiles, type WorkerJob, type WorkerResult } from '../../shared/workerJob'
import type { LaneRunResult } from '../lanes'
import { ShadowGit, storePaths } from '../snapshots'
import { ifMissing, writeFileAtomic, type Logger } from '../workspace'
import { COMMIT_ID, createBundle } from './bundle'

/** The refs of a result bundle: the task's snapshots as the coordinator stores them, and the carrier. */
export const resultRefs = (task: number) => ({
  pre: `refs/lanes/${task}/pre`,
  post: `refs/lanes/${task}/post`,
  result: `refs/lanes/${task}/result`,
})

export interface WrittenResult {
  result: WorkerResult
  dir: string
}

export async function writeWorkerResult(a: {
  /** The worker's scratch project, whose store has the lane's snapshots as refs/lanes/N/pre|post. */
  projectDir: string
  outDir: string
  job: WorkerJob
  run: LaneRunResult
  sandbox: WorkerResult['sandbox']
  transcript: () => string[]
  logger: Logger
  onFinished(status: WorkerResult['status'], message: string): void
}): Promise<WrittenResult> {
  const { job, run } = a
  const git = new ShadowGit(storePaths(a.projectDir).gitDir, a.projectDir)
  const bundled = run.preCommit !== null
  if (bundled) await bundleSnapshots(git, join(a.outDir, workerFiles.resultBundle), job, run)
  const result: WorkerResult = {
    ralph: 'worker-result',
    version: WORKER_JOB_VERSION,
    task: run.task,
    lane: job.lane.number,
    base: job.base.commit,
    status: run.status,
    reason: run.reason ?? null,
    message: run.message,
    pre: run.preCommit,
    post: run.postCommit,
    costUsd: run.costUsd,
    iterations: run.run.iterations,
    sandbox: a.sandbox,
    bundle: bundled ? workerFiles.resultBundle : null,
    transcript: workerFiles.transcript,
  }
  a.onFinished(result.status, result.message)
  await writeFileAtomic(
    join(a.outDir, workerFiles.transcript),
    a
      .transcript()
      .map((l) => l + '\n')
      .join(''),
  )
  await writeFileAtomic(join(a.outDir, workerFiles.result), JSON.stringify(result, null, 2) + '\n')
  return { result, dir: a.outDir }
}

async function bundleSnapshots(
  git: ShadowGit,
  file: string,
  job: WorkerJob,
  run: LaneRunResult,
): Promise<void> {
  const refs = resultRefs(run.task)
  const pre = run.preCommit!
  const post = run.postCommit
  const tree = (await git.text(['rev-parse', `${post ?? pre}^{tree}`])).trim()
  const parents = [job.base.commit, pre, ...(post ? [post] : [])].flatMap((p) => ['-p', p])
  const carrier = (
    await git.text(
      [
        '-c',
        'user.name=Ralph Studio',
        '-c',
        'user.email=worker@ralph.local',
        'commit-tree',
        tree,
        ...parents,
      ],
      { input: `ralph worker: task ${run.task} in lane ${job.lane.number}\n` },
    )
  ).trim()
  if (!COMMIT_ID.test(carrier))
    throw new AppError('git', `git commit-tree gave "${carrier}", not a commit id.`)
  await git.run(['update-ref', refs.result, carrier])
  const names = [refs.pre, ...(post ? [refs.post] : []), refs.result]
  await createBundle(git, file, names, [job.base.commit])
}

/** The result folder, made (or found empty) before the job runs: a run's result never lands among other files. */
export async function makeOutFolder(dir: string): Promise<void> {
  const st = await stat(dir).catch(ifMissing(null))
  if (st === null) {
    await mkdir(dir, { recursive: true, mode: 0o700 })
    return
  }
  if (!st.isDirectory() || (await readdir(dir)).length > 0)
    throw new AppError(
      'invalid-input',
      `${dir} is not an empty folder: the worker writes its result into a new one.`,
    )
}
