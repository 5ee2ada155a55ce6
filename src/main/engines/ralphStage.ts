// An engine session's copy of `.ralph/`: the harness's files copied into the session folder, where the engine may
// write them the way agents do (a temp file, then rename), its folders bound back read-only from the real ones.
// After the session only the model's own files (plan.tsx, summary.md, status.txt) that the engine changed are
// written back; anything else it changed there is dropped with the copy, so the harness's files stay the harness's.
// The copy is the model's: a file there may be a symbolic link to any host file (`ln -sf ~/.ssh/id_ed25519
// .ralph/plan.tsx`), a FIFO or a huge file. The copy-back never follows a link (the stage folder must still be the
// folder made here, each file is opened O_NOFOLLOW and must be a regular file under a size cap); anything else is
// left behind and recorded.
import { copyFile, lstat, mkdir, readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import type { RalphStage } from '../sandbox'
import { MODEL_WRITABLE_FILES } from '../tools'
import {
  ifMissing,
  isTransientRalphFile,
  ralphDir as ralphDirOf,
  readRegularFile,
  writeFileAtomic,
  type Logger,
} from '../workspace'

/** The largest model file taken back from a session (a plan or summary is kilobytes). */
export const MAX_SYNCED_FILE_BYTES = 8 * 1024 * 1024

/** Never copied or bound back: the snapshot store stays invisible (the sandbox covers its path). */
const NOT_STAGED = new Set(['snapshots.git'])

export interface StagedRalphDir extends RalphStage {
  /** Writes back the model's files the engine changed in the copy; returns them (project-relative). */
  syncBack(): Promise<string[]>
}

export async function stageRalphDir(
  projectDir: string,
  sessionDir: string,
  logger: Logger,
): Promise<StagedRalphDir | null> {
  const ralphDir = ralphDirOf(projectDir)
  const st = await lstat(ralphDir).catch(ifMissing(null))
  if (!st?.isDirectory()) return null
  const stage = join(sessionDir, 'ralph')
  await mkdir(stage, { mode: 0o700 })
  const made = await lstat(stage)
  const folders: string[] = []
  const staged = new Map<string, Buffer>()
  for (const entry of await readdir(ralphDir, { withFileTypes: true })) {
    // The harness's locks and temp files are never copied: the engine can neither see nor fake a lock.
    if (NOT_STAGED.has(entry.name) || isTransientRalphFile(entry.name)) continue
    const from = join(ralphDir, entry.name)
    if (entry.isDirectory()) {
      // The mount point the read-only folder is bound onto.
      await mkdir(join(stage, entry.name))
      folders.push(from)
    } else if (entry.isFile()) {
      // A file removed since the listing (the harness's own, written atomically) is simply not in the copy.
      const to = join(stage, entry.name)
      const copied = await copyFile(from, to).then(() => true, ifMissing(false))
      const rel = relative(projectDir, from)
      // What the session starts from is the copy, so that is what a change is measured against.
      if (copied && MODEL_WRITABLE_FILES.includes(rel)) staged.set(rel, await readFile(to))
    }
    // A symlink is not followed: its target could be anywhere.
  }
  return {
    stage,
    ralphDir,
    folders,
    async syncBack() {
      // The session could have renamed the stage away and put a link to another folder in its place.
      const now = await lstat(stage).catch(ifMissing(null))
      if (!now?.isDirectory() || now.ino !== made.ino || now.dev !== made.dev) {
        logger.warn(`engine: the session replaced its copy of .ralph/ (${stage}); nothing was copied back`)
        return []
      }
      const written: string[] = []
      for (const rel of MODEL_WRITABLE_FILES) {
        const read = await readRegularFile(join(stage, relative('.ralph', rel)), {
          noFollow: true,
          maxBytes: MAX_SYNCED_FILE_BYTES,
        })
        if (!read.ok) {
          if (read.reason !== 'missing')
            logger.warn(
              `engine: ${rel} in the session's copy of .ralph/ was not copied back: ` +
                (read.reason === 'too-large'
                  ? `it is ${read.size} bytes, over ${MAX_SYNCED_FILE_BYTES}`
                  : `it is ${read.kind}, not a regular file`),
            )
          continue
        }
        const before = staged.get(rel)
        if (before?.equals(read.data)) continue
        await writeFileAtomic(join(projectDir, rel), read.data)
        written.push(rel)
      }
      return written
    },
  }
}
