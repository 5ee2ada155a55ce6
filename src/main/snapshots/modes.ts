import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import type { SkippedFile } from './types'
import { jsonObject } from './jsonFile'

/**
 * File modes. Git keeps only 644 or 755, so a rollback alone would bring a 0600 key file back as 0644 (readable
 * by everyone) and a 000 file as 0644. Each snapshot therefore records, in its commit message, the exact
 * permission bits of the files whose mode is not one of those two: usually none, so the message stays small.
 * A rollback restores a recorded mode exactly, and otherwise keeps the mode the file has now (with the
 * executable bit git records): a rollback never widens permissions. A chmod alone (content unchanged) of a file
 * with a plain mode is noticed at its next content change; until then the file's current mode is what is kept.
 */
export type ModeManifest = Record<string, number>

// More than this and the project's umask makes everything unusual; the rest keep their current mode.
const MAX_RECORDED = 5000
const PERMS = 0o7777

export const isPlainMode = (perm: number) => perm === 0o644 || perm === 0o755

/** The manifest of a new snapshot: the parent's, updated for the files staged now and re-checked on disk. */
export function nextManifest(
  projectDir: string,
  parent: ModeManifest,
  staged: ReadonlyMap<string, number>,
  skipped: readonly SkippedFile[],
): ModeManifest {
  const out: ModeManifest = {}
  for (const path of Object.keys(parent)) {
    if (staged.has(path)) continue
    const st = lstatSync(join(projectDir, path), { throwIfNoEntry: false })
    if (st?.isFile() && !isPlainMode(st.mode & PERMS)) out[path] = st.mode & PERMS
  }
  for (const [path, perm] of staged) if (!isPlainMode(perm)) out[path] = perm
  for (const s of skipped) delete out[s.path]
  const keys = Object.keys(out)
  if (keys.length <= MAX_RECORDED) return out
  return Object.fromEntries(
    keys
      .sort()
      .slice(0, MAX_RECORDED)
      .map((k) => [k, out[k]!]),
  )
}

export function modesTrailer(modes: ModeManifest): string | null {
  const keys = Object.keys(modes)
  if (keys.length === 0) return null
  return `Ralph-Modes: ${JSON.stringify(Object.fromEntries(keys.sort().map((k) => [k, modes[k]!.toString(8)])))}`
}

export function parseModesTrailer(commitText: string): ModeManifest {
  const m = /\nRalph-Modes: (.*)/.exec(commitText)
  if (!m) return {}
  const raw = jsonObject<Record<string, string>>(m[1]!)
  const out: ModeManifest = {}
  for (const [path, octal] of Object.entries(raw ?? {})) {
    const perm = Number.parseInt(octal as string, 8)
    if (Number.isInteger(perm) && perm >= 0 && perm <= PERMS) out[path] = perm
  }
  return out
}

/**
 * The mode a rolled-back regular file gets: the one recorded in the target snapshot, else the file's current
 * mode with git's executable bit applied, else null (a new file: the umask decides, as for any new file).
 */
export function restoredMode(
  recorded: number | undefined,
  current: number | null,
  executable: boolean,
): number | null {
  if (recorded !== undefined) return recorded
  if (current === null) return null
  return executable ? current | ((current & 0o444) >> 2) : current & ~0o111
}
