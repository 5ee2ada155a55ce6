// Directory reading shared by list_files and grep: hides what snapshots never hold (DESIGN.md §5) and what
// the project's .gitignore files ignore; never follows symlinks (no cycles, no escapes).
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { BUILTIN_EXCLUDED_DIRS } from '../snapshots'
import { type Logger, notRegularNote, readRegularText, holdsAppData, unlessExpected } from '../workspace'
import { isIgnored, parseGitignore, type IgnoreRule } from './gitignore'
import { offLimitsReason } from './paths'

const builtinDirs = new Set<string>(BUILTIN_EXCLUDED_DIRS)

export type EntryKind = 'dir' | 'file' | 'symlink' | 'other'

export interface Entry {
  name: string
  rel: string
  kind: EntryKind
  /** Why the entry is hidden from content (folders are still named in listings), or null. */
  ignored: null | 'builtin' | 'gitignore'
}

const inRalph = (rel: string): boolean => rel === '.ralph' || rel.startsWith('.ralph/')

/**
 * Never shown at all: .git anywhere, the snapshot store, harness locks and temp files, and whatever the file
 * tools' path rules refuse (paths.ts `offLimitsReason`: credential stores, keys, .env files and the like), so list_files and grep
 * never name what read_file would refuse.
 */
export function isHidden(rel: string, name: string): boolean {
  if (name.toLowerCase() === '.git') return true
  if (rel === '.ralph/snapshots.git') return true
  if (
    rel.startsWith('.ralph/') &&
    !rel.slice(7).includes('/') &&
    (name.endsWith('.lock') || /^\..*\.tmp$/.test(name))
  )
    return true
  return offLimitsReason(rel) !== null
}

/**
 * Notes for the model about files a walk did not read (a .gitignore that is a named pipe, say). The walkers
 * add to it; the tool prints each note once after its result.
 */
export type WalkNotes = Set<string>

async function gitignoreRules(root: string, rel: string, notes?: WalkNotes): Promise<IgnoreRule[]> {
  const file = rel === '' ? '.gitignore' : `${rel}/.gitignore`
  // A FIFO or device named .gitignore is not read (it would block the walk forever): its folder has no rules.
  const text = await readRegularText(join(root, file), (kind) =>
    notes?.add(`[${notRegularNote(file, kind)} Its ignore rules were not applied.]`),
  )
  return text === null ? [] : parseGitignore(text, rel)
}

/** Rules that apply inside `rel`: every .gitignore from the root down to `rel` itself. */
export async function rulesFor(root: string, rel: string, notes?: WalkNotes): Promise<IgnoreRule[]> {
  if (inRalph(rel)) return []
  const rules = await gitignoreRules(root, '', notes)
  const parts = rel === '' ? [] : rel.split('/')
  for (let i = 1; i <= parts.length; i++)
    rules.push(...(await gitignoreRules(root, parts.slice(0, i).join('/'), notes)))
  return rules
}

/** Rules for a child folder: the parent's plus the child's own .gitignore. */
export async function childRules(
  root: string,
  rel: string,
  parent: IgnoreRule[],
  notes?: WalkNotes,
): Promise<IgnoreRule[]> {
  if (inRalph(rel)) return []
  const own = await gitignoreRules(root, rel, notes)
  return own.length === 0 ? parent : [...parent, ...own]
}

/**
 * Entries of one folder, sorted folders first then by name; hidden entries are dropped. A folder that vanished or
 * that the user may not read lists as empty.
 */
export async function readEntries(
  root: string,
  rel: string,
  rules: IgnoreRule[],
  log: Logger,
): Promise<Entry[]> {
  const dirents = await readdir(join(root, rel), { withFileTypes: true }).catch(
    unlessExpected(log, `could not list ${rel || 'the project root'}`, []),
  )
  const out: Entry[] = []
  for (const d of dirents) {
    const childRel = rel === '' ? d.name : `${rel}/${d.name}`
    if (isHidden(childRel, d.name)) continue
    // A copy of an app data folder under any name: the database marks it (as the sandbox and read_file see it).
    if (d.isDirectory() && holdsAppData(join(root, childRel))) continue
    const kind: EntryKind = d.isDirectory()
      ? 'dir'
      : d.isFile()
        ? 'file'
        : d.isSymbolicLink()
          ? 'symlink'
          : 'other'
    let ignored: Entry['ignored'] = null
    if (kind === 'dir' && builtinDirs.has(d.name)) ignored = 'builtin'
    // .ralph/ state is always part of the project, whatever the user's ignore rules say (DESIGN.md §5).
    else if (!inRalph(childRel) && isIgnored(rules, childRel, kind === 'dir')) ignored = 'gitignore'
    out.push({ name: d.name, rel: childRel, kind, ignored })
  }
  out.sort(
    (a, b) =>
      Number(b.kind === 'dir') - Number(a.kind === 'dir') || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  )
  return out
}
