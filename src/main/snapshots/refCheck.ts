import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ObjectStore } from './objectStore'
import { isUnwritable } from '../workspace'
import { traceGitFallback } from './traceGit'

/**
 * Whether every ref of the store certainly names a commit it holds, found without starting git: loose refs and
 * packed-refs read directly, object types from loose headers and pack entries. Opening a store checks this each
 * time (a CLI run, a read), and it is almost always so. False whenever anything is unusual — a ref that is not
 * a plain name, an object missing or only stored as a delta — and git's own check (repair.ts) then decides.
 *
 * An object's name fixes its content, so a name once read as a commit stays one for as long as it is stored:
 * those are remembered (KNOWN_COMMITS) and afterwards only looked for, not read and inflated again — with
 * thousands of snapshots that reading was most of every open.
 */
export function refsAllNameCommits(gitDir: string): boolean {
  try {
    const refs = readAllRefs(gitDir)
    if (refs === null) return false
    const store = new ObjectStore(gitDir)
    const known = readKnownCommits(gitDir)
    const named = new Set(refs.values())
    let learned = false
    for (const sha of named) {
      if (known.has(sha)) {
        if (!store.holds(sha)) return false
        continue
      }
      if (store.typeOf(sha) !== 'commit') return false
      learned = true
    }
    // Only what the refs name is kept: a pruned snapshot's commit leaves the list with its tag.
    if (learned || named.size !== known.size) writeKnownCommits(gitDir, named)
    return true
  } catch (err) {
    traceGitFallback('the refs could not be checked in-process', err)
    return false
  }
}

/** Names already read as commits (one per line); written by refsAllNameCommits alone. */
const KNOWN_COMMITS = 'info/ralph-known-commits'

function readKnownCommits(gitDir: string): Set<string> {
  const text = readOptional(join(gitDir, KNOWN_COMMITS)) ?? ''
  // Anything that is not a plain name (a torn write) is simply not known: that commit is read again.
  return new Set(text.split('\n').filter((line) => /^[0-9a-f]{40}$/.test(line)))
}

/** Best effort, through a temporary file and a rename: a reader sees the old list or the new one. */
function writeKnownCommits(gitDir: string, shas: ReadonlySet<string>): void {
  const file = join(gitDir, KNOWN_COMMITS)
  const temp = `${file}.${process.pid}.tmp`
  try {
    writeFileSync(temp, [...shas].sort().join('\n') + '\n')
    renameSync(temp, file)
  } catch (err) {
    rmSync(temp, { force: true })
    if (!isUnwritable(err)) throw err
  }
}

/**
 * Every ref of the store (full name → object name), loose ones outranking their packed copies; null when any is
 * not a plain name (a lock, a torn write, a symbolic ref): git decides then.
 */
export function readAllRefs(gitDir: string): Map<string, string> | null {
  try {
    const refs = new Map<string, string>()
    const packed = readOptional(join(gitDir, 'packed-refs'))
    for (const line of packed?.split('\n') ?? []) {
      if (line === '' || line.startsWith('#') || line.startsWith('^')) continue
      const m = /^([0-9a-f]{40}) (refs\/\S+)$/.exec(line)
      if (!m) return null
      refs.set(m[2]!, m[1]!)
    }
    const walk = (rel: string): boolean => {
      for (const e of readdirSync(join(gitDir, rel), { withFileTypes: true })) {
        const child = `${rel}/${e.name}`
        if (e.isDirectory()) {
          if (!walk(child)) return false
          continue
        }
        if (!e.isFile()) return false
        const sha = readFileSync(join(gitDir, child), 'utf8')
        if (!/^[0-9a-f]{40}\n?$/.test(sha)) return false // a lock, a torn write, a symbolic ref
        refs.set(child, sha.slice(0, 40)) // a loose ref outranks its packed copy
      }
      return true
    }
    return walk('refs') ? refs : null
  } catch (err) {
    traceGitFallback('the refs could not be read in-process', err)
    return null
  }
}

function readOptional(file: string): string | null {
  try {
    return readFileSync(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
}
