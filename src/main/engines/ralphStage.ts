// An engine session's copy of `.ralph/`: the harness's files copied into the session folder, where the engine may
// write them the way agents do (a temp file, then rename), its folders bound back read-only from the real ones.
// After the session only the model's own files (plan.tsx, summary.md, status.txt) that the engine changed are
// written back; anything else it changed there is dropped with the copy, so the harness's files stay the harness's.
import { copyFile, lstat, mkdir, readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import type { RalphStage } from '../sandbox'
import { MODEL_WRITABLE_FILES } from '../tools'
import { ifMissing, ralphDir as ralphDirOf, writeFileAtomic } from '../workspace'

/** Never copied or bound back: the snapshot store stays invisible (the sandbox covers its path). */
const NOT_STAGED = new Set(['snapshots.git'])

export interface StagedRalphDir extends RalphStage {
  /** Writes back the model's files the engine changed in the copy; returns them (project-relative). */
  syncBack(): Promise<string[]>
}

export async function stageRalphDir(projectDir: string, sessionDir: string): Promise<StagedRalphDir | null> {
  const ralphDir = ralphDirOf(projectDir)
  const st = await lstat(ralphDir).catch(ifMissing(null))
  if (!st?.isDirectory()) return null
  const stage = join(sessionDir, 'ralph')
  await mkdir(stage, { mode: 0o700 })
  const folders: string[] = []
  const staged = new Map<string, Buffer>()
  for (const entry of await readdir(ralphDir, { withFileTypes: true })) {
    if (NOT_STAGED.has(entry.name)) continue
    const from = join(ralphDir, entry.name)
    if (entry.isDirectory()) {
      // The mount point the read-only folder is bound onto.
      await mkdir(join(stage, entry.name))
      folders.push(from)
    } else if (entry.isFile()) {
      await copyFile(from, join(stage, entry.name))
      const rel = relative(projectDir, from)
      if (MODEL_WRITABLE_FILES.includes(rel)) staged.set(rel, await readFile(from))
    }
    // A symlink is not followed: its target could be anywhere.
  }
  return {
    stage,
    ralphDir,
    folders,
    async syncBack() {
      const written: string[] = []
      for (const rel of MODEL_WRITABLE_FILES) {
        const now = await readFile(join(stage, relative('.ralph', rel))).catch(ifMissing(null))
        if (now === null) continue
        const before = staged.get(rel)
        if (before?.equals(now)) continue
        await writeFileAtomic(join(projectDir, rel), now)
        written.push(rel)
      }
      return written
    },
  }
}
