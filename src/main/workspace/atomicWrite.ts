import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { writeFile, rename, rm, mkdir } from 'node:fs/promises'
import { dirname, basename, join } from 'node:path'
import { randomBytes } from 'node:crypto'

// A crash between write and rename leaves only a stray temp file, never a half-written state file.
function tempPathFor(file: string): string {
  return join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
}

export async function writeFileAtomic(file: string, data: string | Uint8Array, mode?: number): Promise<void> {
  await mkdir(dirname(file), { recursive: true })
  const tmp = tempPathFor(file)
  try {
    await writeFile(tmp, data, mode === undefined ? undefined : { mode })
    await rename(tmp, file)
  } catch (err) {
    await rm(tmp, { force: true })
    throw err
  }
}

export function writeFileAtomicSync(file: string, data: string | Uint8Array, mode?: number): void {
  mkdirSync(dirname(file), { recursive: true })
  const tmp = tempPathFor(file)
  try {
    writeFileSync(tmp, data, mode === undefined ? undefined : { mode })
    renameSync(tmp, file)
  } catch (err) {
    rmSync(tmp, { force: true })
    throw err
  }
}
