import { existsSync } from 'node:fs'
import { appendFile, mkdir, readFile, writeFile, open as openFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { ShadowGit } from './git'
import { attributesContent, excludeContent } from './exclusions'
import { ifUnreadable } from '../workspace'

/** Where the shadow store and its companions live inside a project (DESIGN.md §4, §5). */
export interface StorePaths {
  projectDir: string
  ralphDir: string
  gitDir: string
  lockFile: string
}

export const BRANCH_REF = 'refs/heads/snapshots'
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904'

export function storePaths(projectDir: string): StorePaths {
  const ralphDir = join(projectDir, '.ralph')
  return {
    projectDir,
    ralphDir,
    gitDir: join(ralphDir, 'snapshots.git'),
    lockFile: join(ralphDir, 'snapshots.lock'),
  }
}

/**
 * Creates `.ralph/` and its `.gitignore` if missing. Minimal on purpose: `ralph init` owns the rest,
 * and an existing file is never overwritten.
 */
export async function ensureRalphDir(paths: StorePaths): Promise<void> {
  if (existsSync(join(paths.ralphDir, '.gitignore'))) return // the usual case, without a trip to the thread pool
  await mkdir(paths.ralphDir, { recursive: true })
  try {
    await writeFile(join(paths.ralphDir, '.gitignore'), 'snapshots.git/\n*.lock\n', { flag: 'wx' })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
}

const CONFIG: [string, string][] = [
  ['core.bare', 'false'],
  ['core.autocrlf', 'false'],
  ['core.safecrlf', 'false'],
  ['core.quotepath', 'false'],
  ['core.fsmonitor', 'false'],
  ['core.untrackedCache', 'true'],
  ['core.logAllRefUpdates', 'false'],
  ['core.precomposeUnicode', 'true'],
  ['index.version', '4'],
  ['gc.auto', '0'],
  ['gc.autoDetach', 'false'],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['advice.addEmbeddedRepo', 'false'],
]

/** Settings `git init` writes on some systems (precomposeUnicode on macOS). */
const INIT_OWNED = new Set(['core.bare', 'core.precomposeUnicode'])

export function storeLooksComplete(gitDir: string): boolean {
  return (
    existsSync(join(gitDir, 'HEAD')) &&
    existsSync(join(gitDir, 'objects')) &&
    existsSync(join(gitDir, 'config')) &&
    existsSync(join(gitDir, 'info', 'ralph-store'))
  )
}

/**
 * Creates (or completes, after a crash mid-init) the shadow store. `git init` is idempotent; the marker
 * file is written last so a half-made store is recognised and finished on the next open.
 */
export async function initStore(git: ShadowGit): Promise<void> {
  // HEAD names our branch from the start; init run again over a half-made store keeps the HEAD it finds (git
  // ignores --initial-branch then), so that one is checked and set as before.
  const branch = BRANCH_REF.slice('refs/heads/'.length)
  await git.plain(['init', '-q', '--bare', '--template=', `--initial-branch=${branch}`, git.gitDir])
  const head = await readFile(join(git.gitDir, 'HEAD'), 'utf8').catch(ifUnreadable(null))
  if (head !== `ref: ${BRANCH_REF}\n`) await git.run(['symbolic-ref', 'HEAD', BRANCH_REF])
  // Keys `git init` may write itself must stay single-valued: a re-run of init (finishing a store after a crash)
  // refuses to set a key that has two values. The rest is appended in one write.
  for (const [key, value] of CONFIG.filter(([k]) => INIT_OWNED.has(k))) await git.run(['config', key, value])
  await appendSettings(git.gitDir)
  await mkdir(join(git.gitDir, 'info'), { recursive: true })
  await writeInfoFiles(git.gitDir)
  await writeFile(join(git.gitDir, 'info', 'ralph-store'), '1\n')
}

/** Appends the settings git init never writes, in one write instead of a `git config` call each (~3 ms each). */
async function appendSettings(gitDir: string): Promise<void> {
  const file = join(gitDir, 'config')
  const current = await readFile(file, 'utf8')
  if (current.includes(SETTINGS_MARK)) return // an init interrupted after this step
  const sections = new Map<string, string[]>()
  for (const [key, value] of CONFIG.filter(([k]) => !INIT_OWNED.has(k))) {
    const dot = key.indexOf('.')
    const section = key.slice(0, dot)
    sections.set(section, [...(sections.get(section) ?? []), `\t${key.slice(dot + 1)} = ${value}`])
  }
  const text = [...sections].map(([section, lines]) => `[${section}]\n${lines.join('\n')}\n`).join('')
  await appendFile(file, `${current.endsWith('\n') ? '' : '\n'}${SETTINGS_MARK}\n${text}`)
}

const SETTINGS_MARK = '# Ralph Studio snapshot store settings'

/** info/exclude and info/attributes are ours; rewritten only when their content changes (the untracked cache keys on them). */
export async function writeInfoFiles(gitDir: string): Promise<void> {
  await writeIfChanged(join(gitDir, 'info', 'exclude'), excludeContent())
  await writeIfChanged(join(gitDir, 'info', 'attributes'), attributesContent())
}

async function writeIfChanged(file: string, content: string): Promise<void> {
  const current = await readFile(file, 'utf8').catch(ifUnreadable(null))
  if (current !== content) await writeFile(file, content)
}

/** Reads a ref without spawning git: the loose file first, then packed-refs. */
export async function readRef(gitDir: string, ref: string): Promise<string | null> {
  const loose = await readFile(join(gitDir, ref), 'utf8').catch(ifUnreadable(null))
  if (loose !== null) {
    const sha = loose.trim()
    if (/^[0-9a-f]{40}$/.test(sha)) return sha
  }
  const packed = await readFile(join(gitDir, 'packed-refs'), 'utf8').catch(ifUnreadable(null))
  if (packed === null) return null
  for (const line of packed.split('\n')) {
    if (line.endsWith(` ${ref}`) && /^[0-9a-f]{40} /.test(line)) return line.slice(0, 40)
  }
  return null
}

/** Number of entries in the shadow index, from its header (no git call). */
export async function indexEntryCount(gitDir: string): Promise<number> {
  let handle
  try {
    handle = await openFile(join(gitDir, 'index'), 'r')
  } catch (err) {
    return ifUnreadable(0)(err)
  }
  try {
    const buf = Buffer.alloc(12)
    const { bytesRead } = await handle.read(buf, 0, 12, 0)
    if (bytesRead < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') return 0
    return buf.readUInt32BE(8)
  } finally {
    await handle.close()
  }
}
