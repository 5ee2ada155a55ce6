// Credential stores and `.env` files INSIDE the project, found so the sandbox can cover each one (the project
// itself is bound writable, so nothing else would hide them). The file tools refuse the same names by path
// alone (src/main/tools/paths.ts); this walk is what the sandbox needs to know where they actually are.
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { blockedPathKind } from '../secrets'
import { BUILTIN_EXCLUDED_DIRS, TOKEN_LINE } from '../snapshots'
import {
  type Logger,
  APP_DATA_MARKER,
  CREDENTIAL_STORES,
  credentialStoreOf,
  isAppDataFile,
  isEnvFile,
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

/**
 * Walks the project once (skipping .git, `.ralph/snapshots.git` and the built-in excluded folders such as
 * node_modules, where a credential store is not expected and which hold most of the files) and returns what the
 * sandbox must cover. Throws when the project is larger than WALK_ENTRY_LIMIT.
 */
export async function findProjectSecrets(projectDir: string, log: Logger): Promise<ProjectSecrets> {
  const hidden: HiddenPath[] = []
  const envFiles: HiddenPath[] = []
  let entries = 0
  const cover = async (list: HiddenPath[], abs: string) => {
    const found = await existingHiddenPath(abs, log)
    if (found !== null) list.push(found)
  }
  const walk = async (rel: string): Promise<void> => {
    const dir = rel === '' ? projectDir : join(projectDir, rel)
    // A folder that vanished or that we may not read: the command cannot read it either.
    const names = await readdir(dir, { withFileTypes: true }).catch(
      unlessExpected(log, `sandbox: could not list ${dir} for credentials`, []),
    )
    entries += names.length
    if (entries > WALK_ENTRY_LIMIT) {
      throw new Error(
        `the project has more than ${WALK_ENTRY_LIMIT} files and folders to check for credentials ` +
          '(node_modules, build output and .git are not counted)',
      )
    }
    if (rel !== '' && names.some((e) => e.name === APP_DATA_MARKER && e.isFile())) {
      await cover(hidden, dir)
      return
    }
    const subdirs: string[] = []
    const checks: Promise<void>[] = []
    for (const e of names) {
      const childRel = rel === '' ? e.name : `${rel}/${e.name}`
      const isDir = e.isDirectory()
      if (mayBeSecret(e.name)) checks.push(check(e.name, childRel, isDir))
      else if (isDir && !SKIPPED_DIRS.has(e.name) && childRel !== '.ralph/snapshots.git')
        subdirs.push(childRel)
    }
    await Promise.all([...checks, ...subdirs.map(walk)])
  }
  const check = async (name: string, childRel: string, isDir: boolean): Promise<void> => {
    const lower = childRel.toLowerCase()
    const abs = join(projectDir, childRel)
    if (credentialStoreOf(lower) === lower) return cover(hidden, abs)
    if (!isDir && isAppDataFile(name)) return cover(hidden, abs)
    if (!isDir && TOKEN_FILES.includes(name.toLowerCase())) {
      if (await holdsToken(abs, log)) await cover(hidden, abs)
      return
    }
    if (!isDir && isEnvFile(name)) return cover(envFiles, abs)
    // The one blocked-paths list (secrets/blockedPaths.ts): `prod.env` with the .env files, keys always.
    const blocked = isDir ? null : blockedPathKind(childRel)
    if (blocked === 'env') return cover(envFiles, abs)
    if (blocked === 'secret') return cover(hidden, abs)
    if (isDir && !SKIPPED_DIRS.has(name)) await walk(childRel)
  }
  await walk('')
  return { hidden, envFiles }
}
