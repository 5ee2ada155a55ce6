// The two ends of a result carried through a pod's log (issue #39; the line format in kubernetesResultLines): the
// worker packs its result folder into one tar file and prints it; the coordinator unpacks the checked tar into a
// result folder, taking only the worker's three result files, for `fetchWorkerResult` to check as any other.
import { execFile } from 'node:child_process'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { AppError } from '../../shared/errors'
import { workerFiles } from '../../shared/workerJob'
import { resultLines } from './kubernetesResultLines'

const run = promisify(execFile)
const RESULT_FILES: string[] = [workerFiles.result, workerFiles.resultBundle, workerFiles.transcript]

/** Prints the result folder's files as marked lines (after the worker's last event). */
export async function printResultTar(
  outDir: string,
  scratch: string,
  write: (line: string) => void,
): Promise<void> {
  const present = new Set(await readdir(outDir))
  const files = RESULT_FILES.filter((f) => present.has(f))
  if (files.length === 0) return
  const file = join(scratch, 'result.tar')
  await run('tar', ['-cf', file, '-C', outDir, ...files])
  for (const line of resultLines(await readFile(file))) write(line + '\n')
  await rm(file, { force: true })
}

/** Unpacks a checked result tar into `into` (created): only the worker's result files, as regular files. */
export async function unpackResultTar(tar: Buffer, into: string): Promise<void> {
  await mkdir(into, { recursive: true, mode: 0o700 })
  const file = join(into, '.result.tar')
  await writeFile(file, tar)
  try {
    const { stdout } = await run('tar', ['-tvf', file])
    for (const entry of stdout.split('\n').filter(Boolean)) {
      const name = entry.trim().split(/\s+/).at(-1) ?? ''
      if (!entry.startsWith('-') || !RESULT_FILES.includes(name.replace(/^\.\//, '')))
        throw new AppError(
          'invalid-input',
          `The worker's result holds something else than its result files (${name}): nothing was taken from it.`,
        )
    }
    await run('tar', ['-xf', file, '-C', into, '--no-same-owner'])
  } finally {
    await rm(file, { force: true })
  }
}
