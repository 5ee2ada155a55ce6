// The files a lane gets from the project besides its checkout: what `.ralph/config.json` "lanes.copy" and a root
// `.worktreeinclude` list (gitignore-style patterns), typically `.env` and, only when listed, `node_modules`.
// Regular files only, never through a symbolic link on either side, never outside the project.
import { constants, type Stats } from 'node:fs'
import { lstat, mkdir, open, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import { mapLimited } from '../../shared/mapLimited'
import { normaliseProjectPath, type ShadowGit } from '../snapshots'
import { readRegularFile } from '../workspace'

export const WORKTREE_INCLUDE = '.worktreeinclude'

export interface CopyReport {
  copied: string[]
  skipped: { path: string; why: string }[]
}

/** The patterns of `.worktreeinclude` (null when there is none), read without following a link. */
export async function readWorktreeInclude(projectDir: string): Promise<string[] | null> {
  const r = await readRegularFile(join(projectDir, WORKTREE_INCLUDE), { noFollow: true, maxBytes: 1 << 20 })
  if (!r.ok) return null
  return r.data.toString('utf8').split(/\r?\n/)
}

/**
 * Copies the project's files matching `patterns` that the lane's checkout lacks. Listed by git against the lane's
 * own index (`ls-files --others --ignored`): a file the snapshot holds is already in the lane. `git` runs with the
 * project as its work tree and `indexFile` as its index; `patternFile` is where the patterns are written for it.
 */
export async function copyListed(opts: {
  git: ShadowGit
  indexFile: string
  patternFile: string
  projectDir: string
  workDir: string
  patterns: string[]
}): Promise<CopyReport> {
  const report: CopyReport = { copied: [], skipped: [] }
  const patterns = opts.patterns.map((p) => p.trim()).filter((p) => p !== '' && !p.startsWith('#'))
  if (patterns.length === 0) return report
  await writeFile(opts.patternFile, patterns.join('\n') + '\n')
  const listed = await opts.git.fields(
    // The store is never walked (thousands of object files); .git folders git never enters anyway.
    [
      'ls-files',
      '-z',
      '--others',
      '--ignored',
      `--exclude-from=${opts.patternFile}`,
      '--',
      '.',
      ':(exclude,top).ralph/snapshots.git',
    ],
    { env: { GIT_INDEX_FILE: opts.indexFile } },
  )
  const results = await mapLimited(listed, 16, async (rel) => {
    const why = await copyOne(opts.projectDir, opts.workDir, rel)
    return { rel, why }
  })
  for (const { rel, why } of results) {
    if (why === null) report.copied.push(rel)
    else report.skipped.push({ path: rel, why })
  }
  report.copied.sort()
  return report
}

/** Copies one file; null when copied, else why not. */
async function copyOne(projectDir: string, workDir: string, listedRel: string): Promise<string | null> {
  let rel: string
  try {
    rel = normaliseProjectPath(listedRel)
  } catch (err) {
    // A .git folder or the snapshot store: never copied, whatever a pattern says.
    if (err instanceof AppError) return 'it is inside a .git folder or the snapshot store'
    throw err
  }
  const parents = rel.split('/').slice(0, -1)
  const srcParent = await realFolders(projectDir, parents, false)
  if (srcParent !== null) return `${srcParent} in the project is not a plain folder (a symbolic link?)`
  const src = await readRegularFile(join(projectDir, rel), { noFollow: true })
  if (!src.ok) {
    if (src.reason === 'missing') return 'it vanished before it was copied'
    if (src.reason === 'not-regular') return `it is ${src.kind}, not a regular file`
    return 'it is too large'
  }
  const dstParent = await realFolders(workDir, parents, true)
  if (dstParent !== null) return `${dstParent} in the lane is not a plain folder (a symbolic link?)`
  // O_EXCL with O_CREAT never follows a link and never overwrites: the checkout's own files stay as they are.
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0)
  let fh
  try {
    fh = await open(join(workDir, rel), flags, src.stat.mode & 0o777)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return 'the lane has a file there already'
    throw err
  }
  try {
    await fh.writeFile(src.data)
  } finally {
    await fh.close()
  }
  return null
}

/**
 * Checks that each folder on the way to a file is a real folder, not a link (creating missing ones when `create`):
 * null when they all are, else the first that is not.
 */
async function realFolders(root: string, parts: string[], create: boolean): Promise<string | null> {
  let at = root
  for (let i = 0; i < parts.length; i++) {
    at = join(at, parts[i]!)
    let st: Stats | null = await lstat(at).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null
      throw err
    })
    if (st === null && create) {
      await mkdir(at).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err
      })
      st = await lstat(at)
    }
    if (st === null || !st.isDirectory()) return parts.slice(0, i + 1).join('/')
  }
  return null
}
