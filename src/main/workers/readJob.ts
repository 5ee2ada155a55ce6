// Reading a job on the worker's side (issue #39): job.json against the schema, and base.bundle checked before
// anything runs: a git bundle carrying exactly the base the job names, with the whole history (no prerequisite),
// passing `git bundle verify`.
import { readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import { workerFiles, type WorkerJob } from '../../shared/workerJob'
import type { Logger } from '../workspace'
import { readBundleHeader, verifyBundle, withScratchStore } from './bundle'
import { BASE_REF } from './createJob'
import { parseJobText } from './jobFormat'

export interface ReadJob {
  dir: string
  job: WorkerJob
  bundleFile: string
}

export async function readJob(path: string, logger: Logger): Promise<ReadJob> {
  const st = await stat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw new AppError('not-found', `There is no job at ${path}.`)
    throw err
  })
  if (!st.isDirectory())
    throw new AppError(
      'invalid-input',
      `${path} is not a job folder: a job is a folder holding ${workerFiles.job} and ${workerFiles.baseBundle}.`,
    )
  const jobFile = join(path, workerFiles.job)
  const text = await readFile(jobFile, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT')
      throw new AppError('invalid-input', `${path} has no ${workerFiles.job}: it is not a job.`)
    throw err
  })
  const job = parseJobText(text, jobFile)
  const bundleFile = join(path, job.base.bundle)
  const what = `The job's base bundle (${workerFiles.baseBundle})`
  const header = await readBundleHeader(bundleFile, what).catch((err: unknown) => {
    throw err instanceof AppError && err.kind === 'not-found'
      ? new AppError('invalid-input', `${path} has no ${workerFiles.baseBundle}: the job is incomplete.`)
      : err
  })
  const carried = header.refs.get(BASE_REF)
  if (header.refs.size !== 1 || carried === undefined)
    throw new AppError(
      'invalid-input',
      `${what} carries ${[...header.refs.keys()].join(', ') || 'no ref'}, not just ${BASE_REF}: it is not this job's.`,
    )
  if (carried !== job.base.commit)
    throw new AppError(
      'invalid-input',
      `${what} holds ${carried.slice(0, 12)}, but the job names base ${job.base.commit.slice(0, 12)}: it is not this job's.`,
    )
  if (header.prerequisites.length > 0)
    throw new AppError(
      'invalid-input',
      `${what} needs commits a worker does not have (${header.prerequisites.map((c) => c.slice(0, 12)).join(', ')}): ` +
        'a base bundle must hold the whole base.',
    )
  await withScratchStore(null, logger, (git) => verifyBundle(git, bundleFile, what))
  return { dir: path, job, bundleFile }
}
