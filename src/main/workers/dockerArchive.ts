import { spawn } from 'node:child_process'
import { mkdtemp, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough, type Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { AppError } from '../../shared/errors'
import { reportedElsewhere } from '../workspace'

// The job goes into a container and the result comes out as tar archives (the Docker API's only way in and out
// without a shared folder). The system's tar (GNU tar on Linux, bsdtar on macOS and Windows) writes and reads
// them: both refuse members that climb out with `..` or start with `/`.

/** Ends with the tar's exit: rejects with its stderr when it failed. */
function tarExit(child: ReturnType<typeof spawn>, doing: string): Promise<void> {
  let stderr = ''
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()))
  return new Promise((resolve, reject) => {
    child.on('error', (err) =>
      reject(new AppError('io', `tar could not be started for ${doing} (${err.message}): install tar.`)),
    )
    child.on('close', (code) => {
      if (code === 0) resolve()
      else reject(new AppError('io', `tar failed ${doing} (exit ${code}): ${stderr.trim() || 'no message'}`))
    })
  })
}

export interface PackedFolder {
  /** The archive: the folder's contents under `name/`. */
  stream: Readable
  /** Resolves when the archive was written whole (and the staging folder removed). */
  done: Promise<void>
}

/**
 * A tar of `fromDir`'s contents under the top folder `name` (what `putArchive` unpacks at the parent of the
 * container path). The name comes from a symbolic link in a staging folder, which tar follows (`-h`): the two
 * tars spell a renamed prefix differently, and a link works the same for both.
 */
export async function packFolder(fromDir: string, name: string): Promise<PackedFolder> {
  if (name === '' || name.includes('/') || name === '.' || name === '..')
    throw new AppError('internal', `packFolder: "${name}" is not a single folder name`)
  const stage = await mkdtemp(join(tmpdir(), 'ralph-pack-'))
  await symlink(fromDir, join(stage, name))
  const child = spawn('tar', ['-C', stage, '-chf', '-', name], { stdio: ['ignore', 'pipe', 'pipe'] })
  const done = tarExit(child, `packing ${fromDir}`).finally(() => rm(stage, { recursive: true, force: true }))
  return { stream: child.stdout!, done }
}

/**
 * Unpacks an archive into `intoDir`, dropping its top folder (the container path's own name); gives up past
 * `maxBytes` of archive, so a worker cannot fill the disk.
 */
export async function unpackInto(
  archive: NodeJS.ReadableStream,
  intoDir: string,
  maxBytes: number,
): Promise<number> {
  const child = spawn('tar', ['-xf', '-', '-C', intoDir, '--no-same-owner', '--strip-components=1'], {
    stdio: ['pipe', 'ignore', 'pipe'],
  })
  const exit = tarExit(child, `unpacking into ${intoDir}`)
  let bytes = 0
  const counter = new PassThrough()
  counter.on('data', (chunk: Buffer) => {
    bytes += chunk.length
    if (bytes > maxBytes)
      counter.destroy(
        new AppError(
          'io',
          `The container's result is larger than ${maxBytes} bytes: it was not unpacked whole.`,
        ),
      )
  })
  try {
    await Promise.all([pipeline(archive, counter, child.stdin!), exit])
  } catch (err) {
    child.kill()
    // The tar's own failure is this same one seen from its side: the first error is the one reported.
    await exit.catch(reportedElsewhere)
    throw err
  }
  return bytes
}
