// A job as one tar file (issue #39): the job folder's two files, for carriers that move one file (a Kubernetes
// object, a copy over ssh). The system's tar writes and reads it (GNU tar on Linux, bsdtar on macOS and Windows);
// both refuse members that climb out with `..` or start with `/`, and only regular files are taken from it.
import { execFile } from 'node:child_process'
import { lstat, mkdir, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { AppError } from '../../shared/errors'
import { workerFiles } from '../../shared/workerJob'

const run = promisify(execFile)

/** Writes the job folder's files into one tar file. */
export async function packJobTar(jobDir: string, file: string): Promise<void> {
  await tar(['-cf', file, '-C', jobDir, workerFiles.job, workerFiles.baseBundle], `packing ${jobDir}`)
}

/**
 * Unpacks a job's tar file into `into` (an empty folder) and returns the folder holding its job.json: the top
 * level, or the archive's one top folder. Anything but regular files there is refused.
 */
export async function unpackJobTar(file: string, into: string): Promise<string> {
  await mkdir(into, { recursive: true, mode: 0o700 })
  await tar(['-xf', file, '-C', into, '--no-same-owner'], `unpacking the job ${file}`)
  let dir = into
  const top = await readdir(into)
  if (!top.includes(workerFiles.job) && top.length === 1) dir = join(into, top[0]!)
  for (const name of [workerFiles.job, workerFiles.baseBundle]) {
    const st = await lstat(join(dir, name)).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT')
        throw new AppError('invalid-input', `The job archive ${file} holds no ${name}: it is not a job.`)
      throw err
    })
    if (!st.isFile())
      throw new AppError(
        'invalid-input',
        `The job archive ${file} holds ${name} as something else than a file.`,
      )
  }
  return dir
}

async function tar(args: string[], doing: string): Promise<void> {
  try {
    await run('tar', args, { maxBuffer: 1024 * 1024 })
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string }
    if (e.code === 'ENOENT') throw new AppError('io', `tar is not installed here, needed for ${doing}.`)
    throw new AppError(
      'invalid-input',
      `tar failed ${doing}: ${(e.stderr ?? e.message).trim().split('\n')[0]}`,
    )
  }
}
