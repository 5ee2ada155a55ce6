import { closeSync, existsSync, fstatSync, readdirSync, readFileSync, readSync } from 'node:fs'
import { readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import type { ShadowGit } from './git'
import { openIfReadable } from './objectStore'
import { refsAllNameCommits } from './refCheck'
import { BRANCH_REF, EMPTY_TREE } from './store'
import { ifUnreadable } from '../workspace'

const TOP_LEVEL_LOCKS = ['index.lock', 'HEAD.lock', 'config.lock', 'packed-refs.lock', 'shallow.lock']

/**
 * Checks the store after a possible crash and repairs what it can. Runs only while holding the project lock,
 * so a git lock file found here was left by an interrupted operation — but its git process may still be running:
 * killing our process does not kill its git child. A young lock is therefore given time to be released before it
 * is broken, so an orphaned `update-index` finishes instead of racing the repair. Returns what it did.
 */
export async function repairStore(git: ShadowGit): Promise<string[]> {
  const repairs: string[] = []
  const gitDir = git.gitDir

  // Looked for synchronously: at every open there is almost never anything to find, and a CLI run pays for each
  // trip through the thread pool. Only what is found takes the slow path (waiting for a young lock's owner).
  for (const name of TOP_LEVEL_LOCKS) {
    if (!existsSync(join(gitDir, name))) continue
    if (await removeIfExists(join(gitDir, name)))
      repairs.push(`Removed a stale ${name} left by an interrupted operation`)
  }
  for (const file of refLockFiles(join(gitDir, 'refs'))) {
    if (await removeIfExists(file)) repairs.push(`Removed a stale ref lock ${relative(gitDir, file)}`)
  }
  // Stores written by earlier versions built rollback trees in a scratch index.
  for (const name of readdirOrNone(gitDir)) {
    if (name.startsWith('ralph-tmp-index')) {
      await rm(join(gitDir, name), { force: true })
      repairs.push('Removed the scratch index of an interrupted rollback')
    }
  }

  // HEAD is always the symbolic ref to our branch; anything else (a torn write, garbage) makes git refuse the
  // whole store as "not a git repository".
  const head = readTextOrNull(join(gitDir, 'HEAD'))
  if (head !== `ref: ${BRANCH_REF}\n`) {
    await writeFile(join(gitDir, 'HEAD'), `ref: ${BRANCH_REF}\n`)
    repairs.push('Rewrote the damaged HEAD of the snapshot store')
  }

  // Refs git cannot read (torn writes) or that point at objects the store does not have. Usually all is well,
  // and that is known without starting git (refCheck.ts).
  if (!refsAllNameCommits(gitDir)) await repairRefs(git, repairs)

  if (indexLooksDamaged(join(gitDir, 'index'))) {
    await rm(join(gitDir, 'index'), { force: true })
    await rebuildIndex(git)
    repairs.push('Rebuilt the damaged snapshot index (the next snapshot re-reads every file once)')
  }
  return repairs
}

/**
 * Removes refs git cannot read (torn writes) or that point at objects the store does not have. One call names
 * every ref's object type; only when some object is missing (git stops) is each ref checked on its own.
 */
async function repairRefs(git: ShadowGit, repairs: string[]): Promise<void> {
  const gitDir = git.gitDir
  const typed = await git.run(['for-each-ref', '--format=%(objectname) %(objecttype) %(refname)'], {
    okCodes: [0, 128],
  })
  if (typed.code === 0) {
    for (const m of typed.stderr.matchAll(/ignoring broken ref (\S+)/g)) {
      await deleteRef(gitDir, m[1]!)
      repairs.push(`Removed the unreadable ref ${m[1]}`)
    }
    for (const line of typed.stdout.toString('utf8').split('\n').filter(Boolean)) {
      const [, type, ref] = /^[0-9a-f]{40} (\S+) (.+)$/.exec(line) ?? []
      if (type !== undefined && type !== 'commit') {
        await deleteRef(gitDir, ref!)
        repairs.push(`Removed the ref ${ref}, whose snapshot data is missing`)
      }
    }
  } else {
    await checkRefsOneByOne(git, repairs)
  }
}

async function checkRefsOneByOne(git: ShadowGit, repairs: string[]): Promise<void> {
  const gitDir = git.gitDir
  const res = await git.run(['for-each-ref', '--format=%(objectname) %(refname)'], { okCodes: [0, 128] })
  for (const m of res.stderr.matchAll(/ignoring broken ref (\S+)/g)) {
    await deleteRef(gitDir, m[1]!)
    repairs.push(`Removed the unreadable ref ${m[1]}`)
  }
  const refs = res.stdout
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => ({ sha: line.slice(0, 40), ref: line.slice(41) }))
  if (refs.length > 0) {
    const check = await git.text(['cat-file', '--batch-check=%(objectname) %(objecttype)'], {
      input: refs.map((r) => r.sha).join('\n') + '\n',
    })
    const lines = check.split('\n')
    for (let i = 0; i < refs.length; i++) {
      const line = lines[i] ?? ''
      if (line.endsWith(' missing') || !line.endsWith(' commit')) {
        await deleteRef(gitDir, refs[i]!.ref)
        repairs.push(`Removed the ref ${refs[i]!.ref}, whose snapshot data is missing`)
      }
    }
  }
}

/** Resets the shadow index to the current position (or empty); stat info is rebuilt by the next save. */
export async function rebuildIndex(git: ShadowGit): Promise<void> {
  await rm(join(git.indexDir, 'index'), { force: true })
  const head = await git.run(['rev-parse', '--verify', '-q', `${BRANCH_REF}^{tree}`], { okCodes: [0, 1] })
  const tree = head.code === 0 ? head.stdout.toString().trim() : EMPTY_TREE
  await git.run(['read-tree', tree])
}

export function isIndexCorruption(message: string): boolean {
  return /index file (corrupt|smaller than expected|open failed)|bad signature|bad index (file|version)|index uses .* extension, which we do not understand/i.test(
    message,
  )
}

function indexLooksDamaged(file: string): boolean {
  // The header and the size are enough here (the index of a large project is megabytes, read at every open).
  const fd = openIfReadable(file)
  if (fd === null) return false
  try {
    const { size } = fstatSync(fd)
    const buf = Buffer.alloc(8)
    const bytesRead = readSync(fd, buf, 0, 8, 0)
    if (size < 32 || bytesRead < 8 || buf.toString('latin1', 0, 4) !== 'DIRC') return true
    const version = buf.readUInt32BE(4)
    return version < 2 || version > 4
  } finally {
    closeSync(fd)
  }
}

function readTextOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8')
  } catch (err) {
    return ifUnreadable(null)(err)
  }
}

async function deleteRef(gitDir: string, ref: string): Promise<void> {
  await rm(join(gitDir, ref), { force: true })
  const packedFile = join(gitDir, 'packed-refs')
  const packed = await readFile(packedFile, 'utf8').catch(ifUnreadable(null))
  if (packed === null) return
  const lines = packed.split('\n')
  const kept: string[] = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (line.endsWith(` ${ref}`)) {
      if (lines[i + 1]?.startsWith('^')) i++ // peeled line of an annotated tag
      continue
    }
    kept.push(line)
  }
  if (kept.length !== lines.length) await writeFile(packedFile, kept.join('\n'))
}

// A lock younger than this may belong to a git process that outlived its parent; an older one is debris.
const YOUNG_LOCK_MS = 60_000
const ORPHAN_WAIT_MS = 20_000

async function removeIfExists(file: string): Promise<boolean> {
  let st = await stat(file).catch(ifUnreadable(null))
  if (!st) return false
  const deadline = Date.now() + ORPHAN_WAIT_MS
  while (st && Date.now() - st.mtimeMs < YOUNG_LOCK_MS && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50))
    st = await stat(file).catch(ifUnreadable(null))
  }
  if (!st) return false
  await rm(file, { force: true })
  return true
}

/** The `.lock` files anywhere under `dir` (the refs folder). */
function refLockFiles(dir: string): string[] {
  let entries
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true })
  } catch (err) {
    return ifUnreadable([])(err)
  }
  return entries
    .filter((e) => !e.isDirectory() && e.name.endsWith('.lock'))
    .map((e) => join(e.parentPath, e.name))
}

function readdirOrNone(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch (err) {
    return ifUnreadable([])(err)
  }
}
