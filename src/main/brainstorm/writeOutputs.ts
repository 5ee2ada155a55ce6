import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { BrainstormDocuments } from '../../shared/brainstorm'
import { writeFileAtomic, isMissing, noteFailure, type Logger } from '../workspace'

export type DocKey = 'vision' | 'roadmap'
export const docFile: Record<DocKey, string> = { vision: 'VISION.md', roadmap: 'ROADMAP.md' }
export const draftFile: Record<DocKey, string> = { vision: 'VISION.draft.md', roadmap: 'ROADMAP.draft.md' }

export const docExists = (projectDir: string, key: DocKey) => existsSync(join(projectDir, docFile[key]))

/** Writes both documents atomically to the chosen names (project-relative); returns the names written. */
export async function writeDocuments(
  projectDir: string,
  docs: BrainstormDocuments,
  targets: Record<DocKey, string>,
): Promise<string[]> {
  const written: string[] = []
  for (const key of ['vision', 'roadmap'] as const) {
    const text = docs[key].endsWith('\n') ? docs[key] : `${docs[key]}\n`
    await writeFileAtomic(join(projectDir, targets[key]), text)
    written.push(targets[key])
  }
  return written
}

/** Where a draft that failed validation is put for the user to fix by hand (never the project root). */
export const handDraftDir = (projectDir: string) => join(projectDir, '.ralph', 'brainstorm', 'draft')
export const handDraftPaths = (projectDir: string) => ({
  vision: join(handDraftDir(projectDir), docFile.vision),
  roadmap: join(handDraftDir(projectDir), docFile.roadmap),
})

export async function writeHandDraft(projectDir: string, docs: BrainstormDocuments): Promise<void> {
  const paths = handDraftPaths(projectDir)
  await writeFileAtomic(paths.vision, docs.vision)
  await writeFileAtomic(paths.roadmap, docs.roadmap)
}

/** The draft the user fixes by hand; null when it is not there (or cannot be read: that is logged). */
export async function readHandDraft(projectDir: string, log: Logger): Promise<BrainstormDocuments | null> {
  const paths = handDraftPaths(projectDir)
  try {
    return { vision: await readFile(paths.vision, 'utf8'), roadmap: await readFile(paths.roadmap, 'utf8') }
  } catch (err) {
    if (!isMissing(err))
      noteFailure(log, 'The hand-fixed brainstorm draft could not be read; shown as missing', err)
    return null
  }
}
