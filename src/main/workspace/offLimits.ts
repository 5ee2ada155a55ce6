// What the model may never see, wherever it sits (DESIGN.md §14): credential stores, token and .env files, Ralph's
// app data, the snapshot store and any .git. The file tools refuse these paths, the sandbox hides them, the
// snapshots and the prompt's file list leave them out: one list for all of them.
import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import { isDenied, isMissing } from './failures'

/**
 * Credential files and folders of the common tools, relative to the home folder that holds them. The sandbox
 * (src/main/sandbox/hidden.ts) hides them in the user's home; the file tools refuse them anywhere in a project.
 */
export const HOME_CREDENTIAL_STORES: readonly string[] = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.password-store',
  '.docker/config.json',
  '.config/gh',
  '.config/gcloud',
  '.config/hub',
  '.config/op',
  '.config/git/credentials',
  '.git-credentials',
  '.netrc',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.terraform.d/credentials.tfrc.json',
  '.m2/settings.xml',
  '.gradle/gradle.properties',
  '.pgpass',
  '.my.cnf',
  '.vault-token',
  '.local/share/keyrings',
  '.bash_history',
  '.zsh_history',
  'Library/Keychains',
]

/**
 * Credential stores, matched at ANY depth (a project may hold a copied home folder): a folder listed here hides
 * everything under it, a file entry hides that path. Lower case, relative to the folder that holds them.
 */
export const CREDENTIAL_STORES: readonly string[] = [
  ...HOME_CREDENTIAL_STORES.map((s) => s.toLowerCase()),
  '_netrc',
  // Ralph's own app data folder, wherever it sits (its default name on every platform) and its files by name.
  'ralph-studio',
]

/**
 * Package-manager files that MAY hold a registry token. The file tools refuse every one of them (a content rule
 * would have to read the file before refusing it, and a model that can write it can read it back through
 * another name); the sandbox and the snapshots hide only those that do hold one (see credentials.ts there).
 */
export const TOKEN_FILES: readonly string[] = ['.npmrc', '.pypirc', '.yarnrc', '.yarnrc.yml']

/** Files of Ralph's app data folder, whatever the folder is called ($RALPH_HOME can be any name). */
const APP_DATA_FILES = new Set([
  'ralph.db',
  'ralph.db-wal',
  'ralph.db-shm',
  'ralph.db-journal',
  'secrets.json',
  'sandbox-permissions.json',
])

export const isAppDataFile = (name: string): boolean => APP_DATA_FILES.has(name.toLowerCase())

/** `.env` and `.env.<anything>`, but not the templates projects commit for others to copy. */
export function isEnvFile(name: string): boolean {
  const lower = name.toLowerCase()
  if (lower === '.env') return true
  if (!lower.startsWith('.env.')) return false
  return !['.env.example', '.env.sample', '.env.template'].includes(lower)
}

const STORE_FIRST = new Set(CREDENTIAL_STORES.map((s) => s.split('/')[0]!))

/** The credential store a lower-case relative path is in (or is), or null. */
export function credentialStoreOf(lower: string): string | null {
  const parts = lower.split('/')
  for (let i = 0; i < parts.length; i++) {
    if (!STORE_FIRST.has(parts[i]!)) continue
    for (const store of CREDENTIAL_STORES) {
      const sp = store.split('/')
      if (i + sp.length > parts.length) continue
      if (sp.every((seg, j) => parts[i + j] === seg)) return parts.slice(0, i + sp.length).join('/')
    }
  }
  return null
}

/** The app data folder's database: a folder holding it is an app data folder of Ralph, wherever it is. */
export const APP_DATA_MARKER = 'ralph.db'

/** True when the folder `dir` (absolute) holds Ralph's database: it and all it holds are off limits. */
export function holdsAppData(dir: string): boolean {
  try {
    return lstatSync(join(dir, APP_DATA_MARKER), { throwIfNoEntry: false })?.isFile() === true
  } catch (err) {
    // ENOTDIR: `dir` is a file, so it holds nothing; a folder we may not search cannot be read from either.
    if (isMissing(err) || isDenied(err)) return false
    throw err
  }
}

/** holdsAppData for a folder already listed (`readdir` with file types): no look of its own. */
export function listsAppData(entries: readonly { name: string; isFile(): boolean }[]): boolean {
  return entries.some((e) => e.name === APP_DATA_MARKER && e.isFile())
}

/** Why a project-relative path is off limits, or null. Case-insensitive: macOS and Windows fold case. */
export function forbiddenReason(rel: string): string | null {
  const lower = rel.toLowerCase()
  if (lower === '.ralph/snapshots.git' || lower.startsWith('.ralph/snapshots.git/')) {
    return 'it is inside .ralph/snapshots.git, the snapshot store, which only the harness may touch'
  }
  const parts = lower.split('/')
  if (parts.includes('.git')) {
    return 'it is inside a .git folder (or is a .git file); version-control internals are off limits'
  }
  if (/^\.ralph\/[^/]*\.lock$/.test(lower)) return 'it is a lock file of the harness'
  const name = parts[parts.length - 1] ?? ''
  const store = credentialStoreOf(lower)
  if (store !== null && store.endsWith('ralph-studio')) {
    return `it is inside an app data folder of Ralph (${store}: its database and stored keys); never shown to the model`
  }
  if (store !== null) {
    return `it is a credential store (${store}); keys and tokens are never shown to the model`
  }
  if (APP_DATA_FILES.has(name)) {
    return "it is a file of Ralph's app data folder (its database or stored keys); never shown to the model"
  }
  if (TOKEN_FILES.includes(name)) {
    return `${name} files can hold registry tokens, so the file tools never read them (commands can use them)`
  }
  if (parts.some(isEnvFile)) {
    return (
      `it is an environment file (${name}) that usually holds secrets; the file tools never read .env files ` +
      '(.env.example, .env.sample and .env.template are allowed)'
    )
  }
  return null
}
