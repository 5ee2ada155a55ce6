import { accessSync, constants, statSync, writeFileSync } from 'node:fs'
import { delimiter, isAbsolute, join } from 'node:path'
import { checkGitVersion } from './git'
import { isUnreadable, isUnwritable } from '../workspace'
import { readJsonObjectSync } from './jsonFile'

/**
 * `checkGitVersion` without starting git on every run of a short-lived process (the CLI): the version found is
 * remembered in `cacheFile` together with the identity of the binary it came from (path, size, mtime, inode),
 * and asked again only when that binary changed. Any doubt (no such file, another binary, a write that fails)
 * means asking git, exactly as before.
 */
export async function cachedGitVersion(binary: string, cacheFile: string): Promise<string> {
  const identity = binaryIdentity(binary)
  if (identity !== null) {
    const cached = readCache(cacheFile)
    if (cached?.identity === identity) return cached.version
  }
  const version = await checkGitVersion(binary)
  if (identity !== null) {
    try {
      writeFileSync(cacheFile, JSON.stringify({ identity, version }) + '\n')
    } catch (err) {
      // A store that cannot be written (or does not exist yet) only means asking again next time.
      if (!isUnwritable(err)) throw err
    }
  }
  return version
}

function readCache(file: string): { identity: string; version: string } | null {
  const parsed = readJsonObjectSync<{ identity: unknown; version: unknown }>(file)
  return typeof parsed?.identity === 'string' && typeof parsed.version === 'string'
    ? { identity: parsed.identity, version: parsed.version }
    : null
}

/** Where `binary` resolves on PATH, with what identifies its content; null when it cannot be told. */
function binaryIdentity(binary: string): string | null {
  if (process.platform === 'win32') return null // PATHEXT and friends: let git answer
  const candidates = binary.includes('/')
    ? [binary]
    : (process.env.PATH ?? '')
        .split(delimiter)
        .filter(isAbsolute)
        .map((d) => join(d, binary))
  for (const file of candidates) {
    let st
    try {
      st = statSync(file, { throwIfNoEntry: false })
      // As the spawn's PATH search: a file this user may not run (or a folder it may not search) is passed over.
      if (st?.isFile()) accessSync(file, constants.X_OK)
    } catch (err) {
      if (isUnreadable(err)) continue
      throw err
    }
    if (st?.isFile()) return `${file}\0${st.size}\0${st.mtimeMs}\0${st.ino}\0${st.dev}`
  }
  return null
}
