// Credential stores and `.env` files INSIDE the project, found so the sandbox can cover each one (the project
// itself is bound writable, so nothing else would hide them). The file tools refuse the same names by path
// alone (src/main/tools/paths.ts); this walk is what the sandbox needs to know where they actually are.
import { readdirSync, type Dirent } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { blockedPathKind } from '../secrets'
import { BUILTIN_EXCLUDED_DIRS, TOKEN_LINE } from '../snapshots'
import {
  type Logger,
  CREDENTIAL_STORES,
  credentialStoreOf,
  isAppDataFile,
  isEnvFile,
  listsAppData,
  TOKEN_FILES,
  unlessExpected,
} from '../workspace'
import { existingHiddenPath } from './hidden'
import type { HiddenPath } from './policy'

/** More entries than this and the walk stops: the command is refused rather than run half-covered. */
export const WALK_ENTRY_LIMIT = 300_000

/** True when a package-manager config file holds a token or password (read at most 256 KB). */
export async function holdsToken(file: string, log: Logger): Promise<boolean> {
  // Unreadable for the harness is unreadable for the command too (same user): nothing to cover.
  const text = await readFile(file, 'utf8').catch(unlessExpected(log, `sandbox: could not read ${file}`, ''))
  return TOKEN_LINE.test(text.slice(0, 256 * 1024))
}

const SKIPPED_DIRS = new Set<string>(['.git', ...BUILTIN_EXCLUDED_DIRS])
/** The last segment of every credential store: a name that is none of these needs no further check. */
const STORE_NAMES = new Set(CREDENTIAL_STORES.map((s) => s.slice(s.lastIndexOf('/') + 1)))

/** A cheap first look at a name, so most entries cost one Set lookup. */
function mayBeSecret(name: string): boolean {
  const lower = name.toLowerCase()
  return (
    STORE_NAMES.has(lower) ||
    lower.startsWith('.env') ||
    TOKEN_FILES.includes(lower) ||
    isAppDataFile(lower) ||
    blockedPathKind(lower) !== null
  )
}

export interface ProjectSecrets {
  /** What to cover, as real paths. */
  hidden: HiddenPath[]
  /** `.env` files found (covered only when the project does not allow them). */
  envFiles: HiddenPath[]
}

/** The longest stretch the walk blocks the event loop before it lets other work run (as walkProjectFiles does). */
const SLICE_MS = 8

/**
 * Walks the project once (skipping .git, `.ralph/snapshots.git` and the built-in excluded folders such as
 * node_modules, where a credential store is not expected and which hold most of the files) and returns what the
 * sandbox must cover. Throws when the project is larger than WALK_ENTRY_LIMIT. Folders are listed synchronously
 * (a thread-pool round trip per folder cost several times the CPU, and held the pool from everyone else's file
 * reads), yielding every few milliseconds; what it finds is looked at asynchronously, all at once.
 */
export async function findProjectSecrets(projectDir: string, log: Logger): Promise<ProjectSecrets> {
  const hidden: HiddenPath[] = []
  const envFiles: HiddenPath[] = []
  const covering: Promise<void>[] = []
  const cover = (list: HiddenPath[], abs: string) =>
    covering.push(
      existingHiddenPath(abs, log).then((found) => {
        if (found !== null) list.push(found)
      }),
    )
  const coverIfToken = (abs: string) =>
    covering.push(
      holdsToken(abs, log).then(async (holds) => {
        if (!holds) return
        const found = await existingHiddenPath(abs, log)
        if (found !== null) hidden.push(found)
      }),
    )
  /** Covers a name that may be a secret; true when it is a folder to walk on. */
  const check = (name: string, childRel: string, isDir: boolean): boolean => {
    const lower = childRel.toLowerCase()
    const abs = join(projectDir, childRel)
    if (credentialStoreOf(lower) === lower) cover(hidden, abs)
    else if (!isDir && isAppDataFile(name)) cover(hidden, abs)
    else if (!isDir && TOKEN_FILES.includes(name.toLowerCase())) coverIfToken(abs)
    else if (!isDir && isEnvFile(name)) cover(envFiles, abs)
    else {
      // The one blocked-paths list (secrets/blockedPaths.ts): `prod.env` with the .env files, keys always.
      const blocked = isDir ? null : blockedPathKind(childRel)
      if (blocked === 'env') cover(envFiles, abs)
      else if (blocked === 'secret') cover(hidden, abs)
      else return isDir && !SKIPPED_DIRS.has(name)
    }
    return false
  }
  let entries = 0
  let sliceStart = performance.now()
  const stack = ['']
  while (stack.length > 0) {
    const rel = stack.pop()!
    const dir = rel === '' ? projectDir : join(projectDir, rel)
    let names: Dirent[]
    try {
      names = readdirSync(dir, { withFileTypes: true })
    } catch (err) {
      // A folder that vanished or that we may not read: the command cannot read it either.
      names = unlessExpected<Dirent[]>(log, `sandbox: could not list ${dir} for credentials`, [])(err)
    }
    entries += names.length
    if (entries > WALK_ENTRY_LIMIT) {
      throw new Error(
        `the project has more than ${WALK_ENTRY_LIMIT} files and folders to check for credentials ` +
          '(node_modules, build output and .git are not counted)',
      )
    }
    if (rel !== '' && listsAppData(names)) {
      cover(hidden, dir)
      continue
    }
    for (const e of names) {
      const childRel = rel === '' ? e.name : `${rel}/${e.name}`
      const isDir = e.isDirectory()
      const walkOn = mayBeSecret(e.name)
        ? check(e.name, childRel, isDir)
        : isDir && !SKIPPED_DIRS.has(e.name) && childRel !== '.ralph/snapshots.git'
      if (walkOn) stack.push(childRel)
    }
    if (performance.now() - sliceStart >= SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve))
      sliceStart = performance.now()
    }
  }
  await Promise.all(covering)
  return { hidden, envFiles }
}
