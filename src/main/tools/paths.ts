// Confinement of every path the model names (DESIGN.md §7, §14): relative to the project root, never outside
// it (lexically or through symlinks), never inside the snapshot store or any .git.
import { lstat, realpath } from 'node:fs/promises'
import { isAbsolute, join, relative, sep } from 'node:path'
import { blockedPathRule } from '../secrets'
import {
  resolveAppDataDir,
  isDenied,
  isMissing,
  APP_DATA_MARKER,
  forbiddenReason,
  holdsAppData,
} from '../workspace'

/**
 * Why the file tools refuse a project-relative path, or null: what no model may see (workspace/offLimits.ts:
 * credential stores, token files, Ralph's own files) and the one blocked-paths list that verification, the sandbox
 * and commits use too (secrets/blockedPaths.ts: `*.env`, `.env.*`, private keys …). Case-insensitive.
 */
export function offLimitsReason(rel: string): string | null {
  const reason = forbiddenReason(rel)
  if (reason !== null) return reason
  const rule = blockedPathRule(rel)
  if (rule === null) return null
  return `it matches ${rule}, a blocked path that holds keys or secrets (private keys, .env files, credentials); the file tools never read or write it`
}

export type PathResolution =
  | {
      ok: true
      /** Real absolute path to operate on (symlinks inside the project resolved). */
      abs: string
      /** Project-relative path with forward slashes; '' for the root itself. */
      rel: string
    }
  | { ok: false; error: string }

export interface ResolveOptions {
  /** Accept '' / '.' (the root itself): list_files and grep. */
  allowRoot?: boolean
}

/** The first folder on the way to `rel` (or `rel` itself) that holds Ralph's database, or null. */
function appDataFolderOn(root: string, rel: string): string | null {
  const parts = rel === '' ? [] : rel.split('/')
  for (let i = 1; i <= parts.length; i++) {
    const folder = parts.slice(0, i).join('/')
    if (holdsAppData(join(root, folder))) return folder
  }
  return null
}

/** Lexical normalisation: forward slashes, no '.', '..' applied; null when '..' climbs above the root. */
export function normaliseRelative(input: string): string | null {
  const parts: string[] = []
  for (const seg of input.split('/')) {
    if (seg === '' || seg === '.') continue
    if (seg === '..') {
      if (parts.length === 0) return null
      parts.pop()
    } else parts.push(seg)
  }
  return parts.join('/')
}

const toPosix = (p: string): string => (sep === '/' ? p : p.split(sep).join('/'))

/** Why a path does not resolve (yet): it is not there, loops, or passes through a folder we may not search. */
const unresolvable = (err: unknown): boolean =>
  isMissing(err) ||
  isDenied(err) ||
  ['ELOOP', 'ENAMETOOLONG'].includes((err as NodeJS.ErrnoException).code ?? '')

const HINT = 'Use a path relative to the project root, e.g. "src/index.ts".'

export async function resolveProjectPath(
  projectDir: string,
  input: string,
  opts: ResolveOptions = {},
): Promise<PathResolution> {
  if (typeof input !== 'string') return { ok: false, error: `The path must be a string. ${HINT}` }
  if (input.includes('\0')) return { ok: false, error: 'The path contains a NUL character.' }
  if (isAbsolute(input) || /^[A-Za-z]:[\\/]/.test(input) || input.startsWith('\\\\')) {
    return { ok: false, error: `Refused "${input}": absolute paths are not allowed. ${HINT}` }
  }
  if (input === '~' || input.startsWith('~/')) {
    return {
      ok: false,
      error: `Refused "${input}": "~" is not expanded and the home folder is off limits. ${HINT}`,
    }
  }
  const rel = normaliseRelative(input)
  if (rel === null) {
    return { ok: false, error: `Refused "${input}": it climbs out of the project root with "..". ${HINT}` }
  }
  if (rel === '' && !opts.allowRoot) {
    return { ok: false, error: `"${input}" is the project root, not a file. ${HINT}` }
  }
  const lexicalReason = offLimitsReason(rel)
  if (lexicalReason) return { ok: false, error: `Refused "${input}": ${lexicalReason}.` }

  const root = await realpath(projectDir)
  const parts = rel === '' ? [] : rel.split('/')
  // The deepest existing ancestor decides where a new file would really land (a symlinked folder may point
  // anywhere); a dangling symlink is refused because writing through it would create its target.
  let real: string | null = null
  let i = parts.length
  for (; i >= 0; i--) {
    const candidate = join(root, ...parts.slice(0, i))
    try {
      real = await realpath(candidate)
      break
    } catch (err) {
      if (!unresolvable(err)) throw err
      const st = await lstat(candidate).catch((e: unknown) => {
        if (unresolvable(e)) return null
        throw e
      })
      if (st?.isSymbolicLink()) {
        return {
          ok: false,
          error: `Refused "${input}": "${parts.slice(0, i).join('/')}" is a symbolic link that cannot be resolved.`,
        }
      }
    }
  }
  if (real === null) return { ok: false, error: `The project folder ${root} does not exist.` }
  const abs = join(real, ...parts.slice(i))
  const realRel = relative(root, abs)
  if (realRel === '..' || realRel.startsWith(`..${sep}`) || isAbsolute(realRel)) {
    return {
      ok: false,
      error: `Refused "${input}": it resolves through a symbolic link to a place outside the project.`,
    }
  }
  const relPosix = toPosix(realRel)
  const realReason = offLimitsReason(relPosix)
  if (realReason) return { ok: false, error: `Refused "${input}": through a symbolic link, ${realReason}.` }
  // An app data folder need not be named like one: a copy of it under any name still holds the database.
  const holder = appDataFolderOn(root, relPosix)
  if (holder !== null) {
    return {
      ok: false,
      error: `Refused "${input}": ${holder} holds Ralph's database (${APP_DATA_MARKER}), so it is an app data folder with stored keys; never shown to the model.`,
    }
  }
  // $RALPH_HOME may be any folder, under any name, inside the project.
  const appData = await realpath(resolveAppDataDir()).catch((err: unknown) => {
    if (unresolvable(err)) return null
    throw err
  })
  // A lane (issue #38) is a project inside the app data folder's `lanes/`: its own files are the model's to work on.
  const inLane = appData !== null && root.startsWith(`${join(appData, 'lanes')}${sep}`)
  if (appData !== null && !inLane && (abs === appData || abs.startsWith(`${appData}${sep}`))) {
    return { ok: false, error: `Refused "${input}": it is inside Ralph's app data folder ($RALPH_HOME).` }
  }
  return { ok: true, abs, rel: relPosix }
}
