import { lstatSync, readdirSync, readFileSync, realpathSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import {
  credentialStoreOf,
  TOKEN_FILES,
  resolveAppDataDir,
  ifUnreadable,
  isUnreadable,
  isTransientRalphFile,
} from '../workspace'

/** Folders never snapshotted, at any depth: dependencies, build output, caches (DESIGN.md §5). */
export const BUILTIN_EXCLUDED_DIRS = [
  'node_modules',
  'bower_components',
  'dist',
  'build',
  'out',
  '.next',
  '.nuxt',
  '.svelte-kit',
  '.turbo',
  '.parcel-cache',
  '.venv',
  'venv',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.tox',
  'target',
  '.cache',
  '.gradle',
] as const

export const DEFAULT_SIZE_CAP = 5 * 1024 * 1024

export function excludeContent(): string {
  return [
    '# Written by Ralph Studio: the snapshot store must never hold itself or its locks.',
    '/.ralph/snapshots.git/',
    '/.ralph/*.lock',
    '/.ralph/*.tmp',
    ...BUILTIN_EXCLUDED_DIRS.map((d) => `${d}/`),
    '',
  ].join('\n')
}

/**
 * info/attributes outranks every .gitattributes: snapshots store raw bytes, so a project's text/eol/filter
 * attributes (CRLF conversion, LFS) can never make a restored file differ from what was saved.
 */
export function attributesContent(): string {
  return '* -text -eol -filter -ident -working-tree-encoding\n'
}

/** True for paths that snapshots never hold, even when git is handed them explicitly. */
export function isAlwaysExcluded(rel: string): boolean {
  if (rel === '.ralph/snapshots.git' || rel.startsWith('.ralph/snapshots.git/')) return true
  // Lock files and the temp files of atomic writes in `.ralph/`: never state worth keeping.
  if (rel.startsWith('.ralph/') && !rel.slice(7).includes('/') && isTransientRalphFile(rel.slice(7)))
    return true
  // Some component is `.git` (no array per path: a first snapshot asks this of every file).
  return rel === '.git' || rel.startsWith('.git/') || rel.endsWith('/.git') || rel.includes('/.git/')
}

/**
 * Lists `.ralph/` state files (always snapshotted, even where the user's ignore rules exclude `.ralph/`),
 * never the store itself, lock files or nested `.git`.
 */
export function listRalphFiles(projectDir: string): string[] {
  const out: string[] = []
  const walk = (rel: string): void => {
    let entries
    try {
      entries = readdirSync(join(projectDir, rel), { withFileTypes: true })
    } catch (err) {
      if (isUnreadable(err)) return
      throw err
    }
    for (const e of entries) {
      const child = `${rel}/${e.name}`
      if (isAlwaysExcluded(child)) continue
      if (e.isDirectory()) walk(child)
      else if (e.isFile() || e.isSymbolicLink()) out.push(child)
    }
  }
  walk('.ralph')
  return out
}

/**
 * Finds folders that hold a `.git` (directory or file: nested repos, worktrees, submodules) among the
 * ancestors of the given paths. Git already reports valid nested repos as `dir/`; this also catches a
 * `.git` file whose target is gone, which git would otherwise treat as a plain folder.
 */
export class NestedRepoDetector {
  /** Folder → the outermost nested repo folder at or above it, or null. */
  private readonly repoOf = new Map<string, string | null>()
  constructor(private readonly projectDir: string) {}

  /** The nested repo folder containing `rel`, or null. */
  containing(rel: string): string | null {
    const slash = rel.lastIndexOf('/')
    return slash === -1 ? null : this.repoAt(rel.slice(0, slash))
  }

  /** Asked once per folder, not once per file: a first snapshot asks for every file. */
  private repoAt(dir: string): string | null {
    let repo = this.repoOf.get(dir)
    if (repo === undefined) {
      const slash = dir.lastIndexOf('/')
      repo = (slash === -1 ? null : this.repoAt(dir.slice(0, slash))) ?? (this.hasGit(dir) ? dir : null)
      this.repoOf.set(dir, repo)
    }
    return repo
  }

  private hasGit(dir: string): boolean {
    try {
      // No exception for the common "no .git here": one per folder cost ~10 µs each (50k files: 250 ms).
      return lstatSync(join(this.projectDir, dir, '.git'), { throwIfNoEntry: false }) !== undefined
    } catch (err) {
      return ifUnreadable(false)(err) // ENOTDIR: a file stands where the folder was
    }
  }
}

/** Registry tokens and passwords in .npmrc, .pypirc and .yarnrc files (the sandbox uses the same test). */
export const TOKEN_LINE =
  /(_authToken|_auth\b|_password|npmAuthToken|npmAuthIdent|^\s*password\s*[=:]|^\s*token\s*[=:])/im

/**
 * Credentials anywhere in the project, which snapshots never hold (DESIGN.md §14): credential stores (`.ssh/`,
 * `.aws/` … the list in tools/paths.ts), Ralph's app data folder (a folder holding its database, or
 * $RALPH_HOME), and `.npmrc`/`.pypirc`/`.yarnrc` files that hold a token. `.env` files ARE snapshotted: they are
 * the user's work, and the snapshot store never leaves the project. Asked once per file of a pass, so folders
 * are looked at once each.
 */
export class CredentialDetector {
  /** Folder → the app data folder at or above it, or null. */
  private readonly appDataOf = new Map<string, string | null>()
  private readonly ralphHome: string | null

  constructor(private readonly projectDir: string) {
    let home: string | null = null
    try {
      const rel = relative(realpathSync(projectDir), realpathSync(resolveAppDataDir()))
      if (rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep)) home = rel.split(sep).join('/')
    } catch (err) {
      // No app data folder yet: nothing of it can be in the project.
      if (!isUnreadable(err)) throw err
    }
    this.ralphHome = home
  }

  /** The path to list as skipped (the store's folder, or the file) when `rel` is a credential, else null. */
  skipOf(rel: string): string | null {
    const lower = rel.toLowerCase()
    const store = credentialStoreOf(lower)
    if (store !== null) return rel.split('/').slice(0, store.split('/').length).join('/')
    if (this.ralphHome !== null && (rel === this.ralphHome || rel.startsWith(`${this.ralphHome}/`))) {
      return this.ralphHome
    }
    const slash = rel.lastIndexOf('/')
    const name = rel.slice(slash + 1)
    const dir = slash === -1 ? '' : rel.slice(0, slash)
    const appData = this.appDataAt(dir)
    if (appData !== null) return appData
    if (TOKEN_FILES.includes(name.toLowerCase()) && this.holdsToken(rel)) return rel
    return null
  }

  /** A folder that holds `ralph.db` is an app data folder of Ralph (the project root itself never is). */
  private appDataAt(dir: string): string | null {
    if (dir === '') return null
    let found = this.appDataOf.get(dir)
    if (found === undefined) {
      const slash = dir.lastIndexOf('/')
      found = this.appDataAt(slash === -1 ? '' : dir.slice(0, slash))
      if (found === null) {
        try {
          const st = lstatSync(join(this.projectDir, dir, 'ralph.db'), { throwIfNoEntry: false })
          if (st?.isFile()) found = dir
        } catch (err) {
          // ENOTDIR: not a folder (any more).
          if (!isUnreadable(err)) throw err
        }
      }
      this.appDataOf.set(dir, found)
    }
    return found
  }

  private holdsToken(rel: string): boolean {
    try {
      const text = readFileSync(join(this.projectDir, rel), 'utf8').slice(0, 256 * 1024)
      return TOKEN_LINE.test(text)
    } catch (err) {
      return ifUnreadable(false)(err)
    }
  }
}
