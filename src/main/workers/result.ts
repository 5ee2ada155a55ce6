// The coordinator's side of a worker's result (issue #39): result.json and result.bundle checked before anything
// reaches the project's store, then the task's snapshots fetched as `refs/lanes/N/pre|post`, exactly where a local
// lane's run leaves them (laneFetch), so the merge and the verification with the coordinator's own nonce take over.
//
// Checked, in a scratch store that borrows the project's objects (a refused result leaves nothing behind):
// result.json answers this job (task, lane, base); the bundle names exactly the expected refs with the commits
// result.json names, and needs exactly the job's base; git verifies it and index-pack unpacks every object; the
// carrier commit joins the base, pre and post; the snapshots are parentless snapshot commits; and the pre-task
// snapshot is the base with only Ralph's own `.ralph/` state changed.
import { access, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import { workerFiles, type WorkerJob, type WorkerResult } from '../../shared/workerJob'
import { isRalphOwnPath } from '../../shared/ralphFiles'
import { laneRef } from '../lanes'
import { readRef, ShadowGit, storePaths, withSnapshotLock } from '../snapshots'
import type { Logger } from '../workspace'
import { readBundleHeader, unbundle, verifyBundle, withScratchStore } from './bundle'
import { parseResultText } from './jobFormat'
import { resultRefs } from './writeResult'

export interface FetchResultInput {
  /** The user's project: its store holds the job's base and receives the snapshots. */
  projectDir: string
  /** The worker's result folder (result.json, result.bundle, transcript.ndjson). */
  resultDir: string
  /** The job this result answers (as createJob made it). */
  job: Pick<WorkerJob, 'base' | 'task' | 'lane'>
  logger: Logger
}

export interface FetchedResult {
  result: WorkerResult
  /** The snapshots now in the project's store as refs/lanes/N/pre|post (null: the worker took none). */
  pre: string | null
  post: string | null
  /** The worker's NDJSON events. */
  transcriptFile: string
}

export async function fetchWorkerResult(input: FetchResultInput): Promise<FetchedResult> {
  const { job } = input
  const file = join(input.resultDir, workerFiles.result)
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT')
      throw new AppError(
        'invalid-input',
        `${input.resultDir} has no ${workerFiles.result}: the worker did not finish.`,
      )
    throw err
  })
  const result = parseResultText(text, file)
  refuseForeign(result, job)
  const transcriptFile = join(input.resultDir, result.transcript)
  await access(transcriptFile).catch((err: NodeJS.ErrnoException) => {
    throw new AppError(
      'invalid-input',
      `The worker's transcript is missing (${transcriptFile}: ${err.code}).`,
    )
  })
  if (result.bundle === null) {
    if (result.pre !== null || result.post !== null)
      throw new AppError('invalid-input', `${file} names snapshots but no bundle carries them.`)
    return { result, pre: null, post: null, transcriptFile }
  }
  if (result.pre === null)
    throw new AppError('invalid-input', `${file} brings a bundle but names no pre-task snapshot in it.`)
  const bundleFile = join(input.resultDir, result.bundle)
  await checkHeader(bundleFile, result, job.base.commit)
  const { gitDir } = storePaths(input.projectDir)
  await withScratchStore(gitDir, input.logger, async (scratch, scratchDir) => {
    await unpackChecked(scratch, bundleFile, result, job.base.commit)
    await fetchInto(input.projectDir, scratchDir, result)
  })
  return { result, pre: result.pre, post: result.post, transcriptFile }
}

/** A result of another job (another task, lane or base) is refused before its bundle is read. */
function refuseForeign(result: WorkerResult, job: FetchResultInput['job']): void {
  const wrong: string[] = []
  if (result.base !== job.base.commit)
    wrong.push(`base ${result.base.slice(0, 12)}, not ${job.base.commit.slice(0, 12)}`)
  if (result.task !== job.task.number) wrong.push(`task ${result.task}, not ${job.task.number}`)
  if (result.lane !== job.lane.number) wrong.push(`lane ${result.lane}, not ${job.lane.number}`)
  if (wrong.length > 0)
    throw new AppError(
      'invalid-input',
      `This result answers another job (${wrong.join('; ')}): nothing was fetched.`,
    )
  if (result.status === 'complete' && result.post === null)
    throw new AppError(
      'invalid-input',
      'The result says the task is complete but brings no post-task snapshot.',
    )
}

const what = `The worker's result bundle (${workerFiles.resultBundle})`

async function checkHeader(bundleFile: string, result: WorkerResult, base: string): Promise<void> {
  const header = await readBundleHeader(bundleFile, what)
  const refs = resultRefs(result.task)
  const expected = new Map<string, string | null>([
    [refs.pre, result.pre],
    ...(result.post !== null ? [[refs.post, result.post] as [string, string]] : []),
    [refs.result, null],
  ])
  const names = [...header.refs.keys()].sort()
  if (names.join(' ') !== [...expected.keys()].sort().join(' '))
    throw new AppError(
      'invalid-input',
      `${what} carries ${names.join(', ') || 'no ref'}; a result of task ${result.task} carries ` +
        `${[...expected.keys()].join(', ')}: nothing was fetched.`,
    )
  for (const [name, sha] of expected)
    if (sha !== null && header.refs.get(name) !== sha)
      throw new AppError('invalid-input', `${what} has ${name} at another commit than result.json names.`)
  if (header.prerequisites.length !== 1 || header.prerequisites[0] !== base)
    throw new AppError(
      'invalid-input',
      `${what} is not based on the job's base ${base.slice(0, 12)} (it needs ` +
        `${header.prerequisites.map((c) => c.slice(0, 12)).join(', ') || 'nothing'}): nothing was fetched.`,
    )
}

/** Verifies and unpacks the bundle into the scratch store, checks its commits, and names them there. */
async function unpackChecked(
  git: ShadowGit,
  bundleFile: string,
  result: WorkerResult,
  base: string,
): Promise<void> {
  await verifyBundle(git, bundleFile, what)
  const refs = await unbundle(git, bundleFile, what)
  const names = resultRefs(result.task)
  const carrier = refs.get(names.result)!
  const parents = (await git.text(['rev-list', '--parents', '-n', '1', carrier])).trim().split(' ').slice(1)
  const want = [base, result.pre!, ...(result.post !== null ? [result.post] : [])]
  if (parents.join(' ') !== want.join(' '))
    throw new AppError('invalid-input', `${what} does not join the job's base to the task's snapshots.`)
  for (const snapshot of want.slice(1)) {
    const own = (await git.text(['rev-list', '--parents', '-n', '1', snapshot])).trim().split(' ')
    if (own.length !== 1)
      throw new AppError(
        'invalid-input',
        `${what} holds ${snapshot.slice(0, 12)}, which is not a snapshot commit.`,
      )
  }
  const changed = (
    await git.text(['diff-tree', '-r', '-z', '--no-renames', '--name-only', base, result.pre!])
  )
    .split('\0')
    .filter(Boolean)
  const outside = changed.filter((p) => !isRalphOwnPath(p))
  if (outside.length > 0)
    throw new AppError(
      'invalid-input',
      `${what}'s pre-task snapshot is not the job's base: it changes ${outside.slice(0, 3).join(', ')}` +
        `${outside.length > 3 ? ' …' : ''}. Nothing was fetched.`,
    )
  const updates = [
    `update ${names.pre} ${result.pre}`,
    ...(result.post ? [`update ${names.post} ${result.post}`] : []),
  ]
  await git.run(['update-ref', '--stdin'], { input: updates.join('\n') + '\n' })
}

/** From the checked scratch store into the project's store, as laneFetch brings a local lane's snapshots. */
async function fetchInto(projectDir: string, scratchDir: string, result: WorkerResult): Promise<void> {
  const { gitDir } = storePaths(projectDir)
  const git = new ShadowGit(gitDir, projectDir)
  const names = resultRefs(result.task)
  const specs = [`+${names.pre}:${laneRef(result.task, 'pre')}`]
  if (result.post !== null) specs.push(`+${names.post}:${laneRef(result.task, 'post')}`)
  const fetch = ['-c', 'protocol.file.allow=always', 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head']
  await withSnapshotLock(projectDir, 'worker result fetch', () =>
    git.run([...fetch, '--', scratchDir, ...specs]),
  )
  for (const [name, sha] of [
    ['pre', result.pre],
    ['post', result.post],
  ] as const) {
    if (sha === null) continue
    if ((await readRef(gitDir, laneRef(result.task, name))) !== sha)
      throw new AppError(
        'git',
        `The worker's ${name} snapshot of task ${result.task} did not reach the project's store.`,
      )
  }
}
