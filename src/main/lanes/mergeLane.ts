// A lane's result as a commit of the shadow store, and its merge onto the integration state with
// `git merge-tree --write-tree` (git ≥ 2.38): the merged tree is written to the store's objects and no work tree,
// index or ref is touched. Git 2.39 has no --merge-base, so the merge base comes from history: a lane's result
// commit has the lane's base as its parent, and the integration state descends from that base.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import type { ShadowGit } from '../snapshots'
import type { LaneGit } from './laneCopy'
import type { LaneMarker } from './laneFolder'
import type { MergeConflict, MergeOutcome } from './mergeDecision'
import {
  largerCounter,
  planSidesFor,
  ralphActions,
  ralphRuleFor,
  RULED_PATHS,
  unionLines,
  type Entry,
  type RalphAction,
  type Sides,
} from './ralphMergeRules'

const SHA = /^[0-9a-f]{40}$/

/**
 * Stages the lane's work tree into its own index and commits it with the lane's base as parent. The files copied
 * into the lane (`.env`, listed folders) are left out, whatever the project's ignore rules say: they are the
 * user's, not the task's result.
 */
export async function commitLaneResult(
  lane: { dir: string; git: LaneGit; marker: LaneMarker },
  message: string,
  now: () => number = Date.now,
): Promise<string> {
  const exclude = join(lane.dir, 'exclude')
  await writeFile(
    exclude,
    lane.marker.copied.map((p) => '/' + p.replace(/([*?[\\])/g, '\\$1')).join('\n') + '\n',
  )
  await lane.git.run(['-c', `core.excludesFile=${exclude}`, 'add', '-A', '--', '.'])
  const tree = (await lane.git.text(['write-tree'])).trim()
  const seconds = Math.floor(now() / 1000)
  const commit = (
    await lane.git.text(['commit-tree', tree, '-p', lane.marker.base], {
      input: message,
      env: { GIT_AUTHOR_DATE: `@${seconds} +0000`, GIT_COMMITTER_DATE: `@${seconds} +0000` },
    })
  ).trim()
  if (!SHA.test(commit)) throw new AppError('git', `git commit-tree gave "${commit}", not a commit id.`)
  return commit
}

/** Merges `theirs` (a lane's result) onto `ours` (the integration state): the merged tree, or the conflicts. */
export async function mergeOnto(git: ShadowGit, ours: string, theirs: string): Promise<MergeOutcome> {
  for (const c of [ours, theirs])
    if (!SHA.test(c)) throw new AppError('invalid-input', `"${c}" is not a commit id.`)
  const res = await git.run(['merge-tree', '--write-tree', '-z', '--name-only', ours, theirs], {
    okCodes: [0, 1],
  })
  return parseMergeTree(res.stdout.toString('utf8'), res.code)
}

/**
 * `merge-tree --write-tree -z --name-only` output: the tree, then (on conflict) each conflicted path, an empty
 * field, then messages as `<count> <path>… <type> <text>`. Exit 0 is clean, 1 is conflicted.
 */
export function parseMergeTree(out: string, code: number): MergeOutcome {
  const { tree, conflicts } = readMergeTree(out, code)
  return conflicts.length === 0 && code === 0 ? { kind: 'clean', tree } : { kind: 'conflict', conflicts }
}

/** The tree merge-tree wrote (with conflict markers in conflicted files) and its conflicts, by path. */
function readMergeTree(out: string, code: number): { tree: string; conflicts: MergeConflict[] } {
  const f = out.split('\0')
  const tree = f[0] ?? ''
  if (!SHA.test(tree)) throw new AppError('git', `git merge-tree gave no tree (exit ${code}).`)
  if (code === 0) return { tree, conflicts: [] }
  const paths: string[] = []
  let i = 1
  for (; i < f.length && f[i] !== ''; i++) paths.push(f[i]!)
  const kinds = new Map<string, string[]>(paths.map((p) => [p, []]))
  for (i++; i < f.length && f[i] !== ''; ) {
    const count = Number(f[i])
    if (!Number.isInteger(count) || count < 0) break
    const about = f.slice(i + 1, i + 1 + count)
    const type = f[i + 1 + count] ?? ''
    i += count + 3
    if (!type.startsWith('CONFLICT')) continue
    for (const p of about) {
      const list = kinds.get(p) ?? []
      if (!list.includes(type)) list.push(type)
      kinds.set(p, list)
    }
  }
  const conflicts = [...kinds].map(([path, k]) => ({ path, kinds: k }))
  return { tree, conflicts: conflicts.sort((a, b) => a.path.localeCompare(b.path)) }
}

/** A lane's merge with the `.ralph/` rules applied; `notes` name lane changes the rules dropped. */
export type LaneMerge =
  | { kind: 'clean'; tree: string; commit?: string; notes: string[] }
  | { kind: 'conflict'; conflicts: MergeConflict[]; notes: string[] }

export interface LaneMergeInput {
  /** The integration state (a commit of the project's store). */
  ours: string
  /** The lane's result: `refs/lanes/<task>/post` (a snapshot, no parent) or a commitLaneResult commit. */
  theirs: string
  /** The lane's task: plan.tsx keeps only its markers. */
  task: number
  /**
   * The lane's base (its marker's `base`, runInLane's `baseCommit`). Snapshot commits have no parents, so give it
   * whenever ours or theirs is a snapshot. Without it the base is the one merge base of ours and theirs, which
   * exists only when both descend from the lane's base (a commitLaneResult onto a merge commit made here).
   */
  base?: string
  /** Given on a clean merge: the merged tree is committed with ours and theirs as parents (no ref is moved). */
  message?: string
  now?: () => number
}

/**
 * Merges a lane's result onto the integration state in the project's store: project files and unruled `.ralph/`
 * files 3-way (merge-tree), the ruled `.ralph/` files by ralphMergeRules.ts. The result's tree is built in a
 * temporary index; the store's own index, HEAD and refs are never touched.
 */
export async function mergeLaneResult(git: ShadowGit, input: LaneMergeInput): Promise<LaneMerge> {
  const { ours, theirs, task } = input
  for (const c of [ours, theirs, ...(input.base === undefined ? [] : [input.base])])
    if (!SHA.test(c)) throw new AppError('invalid-input', `"${c}" is not a commit id.`)
  if (!Number.isSafeInteger(task) || task < 1)
    throw new AppError('invalid-input', `${task} is not a task number.`)
  const now = input.now ?? Date.now
  const base = input.base ?? (await mergeBase(git, ours, theirs))
  // The ruled entries are read while the trees merge: the build's merge train waits for both.
  const [res, entries] = await Promise.all([
    (input.base === undefined
      ? Promise.resolve({ ours, theirs })
      : onBase(git, base, { ours, theirs }, now)
    ).then((pair) =>
      git.run(['merge-tree', '--write-tree', '-z', '--name-only', pair.ours, pair.theirs], {
        okCodes: [0, 1],
      }),
    ),
    ruledEntries(git, { base, ours, theirs }),
  ])
  const merged = readMergeTree(res.stdout.toString('utf8'), res.code)
  if (res.code !== 0 && merged.conflicts.length === 0)
    throw new AppError('git', 'git merge-tree reported a conflict but named no path.')
  const conflicts = merged.conflicts.filter((c) => ralphRuleFor(c.path) === null)
  const { actions, notes } = ralphActions(entries)

  const dir = await mkdtemp(join(tmpdir(), 'ralph-merge-'))
  try {
    const needed = actions.filter((a) => a.do !== 'entry').map((a) => entries.get(a.path)!)
    const texts = await readBlobs(
      git,
      needed.flatMap((s) => [s.base, s.ours, s.theirs]).flatMap((e) => (e === null ? [] : [e.oid])),
    )
    const updates: { path: string; entry: Entry | null }[] = []
    for (const a of actions) {
      const done = await resolveAction(git, a, entries.get(a.path)!, texts, { task, dir })
      if ('conflict' in done) conflicts.push(done.conflict)
      else updates.push({ path: a.path, entry: done.entry })
    }
    if (conflicts.length > 0)
      return { kind: 'conflict', conflicts: conflicts.sort((a, b) => a.path.localeCompare(b.path)), notes }
    const tree = await treeWith(git, merged.tree, updates, join(dir, 'index'))
    if (input.message === undefined) return { kind: 'clean', tree, notes }
    const commit = await commitOf(git, tree, [ours, theirs], input.message, now)
    return { kind: 'clean', tree, commit, notes }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * Ours' and theirs' trees as children of the given base: git 2.39's merge-tree has no --merge-base, and their
 * one merge base is then the lane's base, whatever their own history (snapshot commits have none).
 */
async function onBase(
  git: ShadowGit,
  base: string,
  sides: { ours: string; theirs: string },
  now: () => number,
): Promise<{ ours: string; theirs: string }> {
  const side = (c: string, name: string) => commitOf(git, `${c}^{tree}`, [base], `lane merge: ${name}\n`, now)
  const [ours, theirs] = await Promise.all([side(sides.ours, 'integration'), side(sides.theirs, 'lane')])
  return { ours, theirs }
}

/** The lane's base: the one merge base of the two (a lane's result has its base as parent). */
async function mergeBase(git: ShadowGit, ours: string, theirs: string): Promise<string> {
  const bases = (await git.text(['merge-base', '--all', ours, theirs], { okCodes: [0, 1] }))
    .split('\n')
    .filter((l) => SHA.test(l))
  if (bases.length !== 1)
    throw new AppError(
      'git',
      `The lane's result ${theirs.slice(0, 12)} and the integration state ${ours.slice(0, 12)} have ` +
        `${bases.length === 0 ? 'no common base' : `${bases.length} merge bases`}: a lane must start from a ` +
        'state of the integration. Discard the lane and run its task again.',
    )
  return bases[0]!
}

/** The entries of the ruled `.ralph/` paths on each side (absent: null). */
async function ruledEntries(git: ShadowGit, commits: Sides<string> & { base: string }) {
  const entries = new Map<string, Sides<Entry>>(
    RULED_PATHS.map((p) => [p, { base: null, ours: null, theirs: null }]),
  )
  const sides = ['base', 'ours', 'theirs'] as const
  const listed = await Promise.all(
    sides.map((side) =>
      git.fields(['ls-tree', '-r', '-z', '--full-tree', commits[side]!, '--', ...RULED_PATHS]),
    ),
  )
  for (const [i, side] of sides.entries()) {
    for (const line of listed[i]!) {
      const m = /^(\d{6}) blob ([0-9a-f]{40})\t(.*)$/s.exec(line)
      const sides = m ? entries.get(m[3]!) : undefined
      if (m && sides) sides[side] = { mode: m[1]!, oid: m[2]! }
    }
  }
  return entries
}

/** The texts of these blobs, read in one `cat-file --batch` call. */
async function readBlobs(git: ShadowGit, oids: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(oids)]
  const texts = new Map<string, string>()
  if (unique.length === 0) return texts
  const out = (await git.run(['cat-file', '--batch'], { input: unique.join('\n') + '\n' })).stdout
  let at = 0
  for (const oid of unique) {
    const nl = out.indexOf(10, at)
    const header = /^([0-9a-f]{40}) blob (\d+)$/.exec(out.toString('latin1', at, nl === -1 ? out.length : nl))
    if (nl === -1 || header?.[1] !== oid)
      throw new AppError('git', `git cat-file could not read blob ${oid} of the merge.`)
    const size = Number(header[2])
    texts.set(oid, out.toString('utf8', nl + 1, nl + 1 + size))
    at = nl + 1 + size + 1
  }
  return texts
}

async function writeBlob(git: ShadowGit, text: string, like: Entry | null): Promise<Entry> {
  const oid = (await git.text(['hash-object', '-w', '--stdin'], { input: text })).trim()
  if (!SHA.test(oid)) throw new AppError('git', `git hash-object gave "${oid}", not an object id.`)
  return { mode: like?.mode === '100755' ? '100755' : '100644', oid }
}

/** One ruled path's entry in the result, or its conflict (only plan.tsx can conflict). */
async function resolveAction(
  git: ShadowGit,
  a: RalphAction,
  sides: Sides<Entry>,
  texts: Map<string, string>,
  ctx: { task: number; dir: string },
): Promise<{ entry: Entry | null } | { conflict: MergeConflict }> {
  if (a.do === 'entry') return { entry: a.entry }
  const text = (e: Entry | null): string | null => (e === null ? null : (texts.get(e.oid) ?? ''))
  const [ours, theirs] = [text(sides.ours), text(sides.theirs)]
  if (a.do === 'union')
    return { entry: await writeBlob(git, unionLines(ours ?? '', theirs ?? ''), sides.ours) }
  if (a.do === 'max') {
    const counter = largerCounter(ours, theirs)
    return { entry: counter === null ? sides.ours : await writeBlob(git, counter, sides.ours) }
  }
  const plans = planSidesFor({ base: text(sides.base), ours, theirs }, ctx.task)
  const merged = await mergeTexts(git, plans, ctx.dir)
  if (merged.conflict !== null) return { conflict: { path: a.path, kinds: [merged.conflict] } }
  if (merged.text === '' && (sides.ours === null || sides.theirs === null)) return { entry: null }
  return { entry: await writeBlob(git, merged.text, sides.ours ?? sides.theirs) }
}

/** `git merge-file -p` of three texts in temp files (git 2.39 cannot merge blobs by id): the text or a conflict. */
async function mergeTexts(
  git: ShadowGit,
  texts: Sides<string>,
  dir: string,
): Promise<{ text: string; conflict: string | null }> {
  const files = { ours: join(dir, 'ours'), base: join(dir, 'base'), theirs: join(dir, 'theirs') }
  for (const side of ['ours', 'base', 'theirs'] as const) await writeFile(files[side], texts[side] ?? '')
  // Exit: the number of conflicts (at most 127), 255 for an error such as binary input.
  const okCodes = Array.from({ length: 256 }, (_, i) => i)
  const labels = ['-L', 'integration', '-L', 'base', '-L', 'lane']
  const res = await git.run(['merge-file', '-p', ...labels, files.ours, files.base, files.theirs], {
    okCodes,
  })
  if (res.code === 0) return { text: res.stdout.toString('utf8'), conflict: null }
  if (res.code < 128) return { text: '', conflict: 'CONFLICT (contents)' }
  if (/binary/i.test(res.stderr)) return { text: '', conflict: 'CONFLICT (binary)' }
  throw new AppError('git', `git merge-file failed: ${res.stderr.trim() || `exit code ${res.code}`}`)
}

/** merge-tree's tree with the ruled entries set, through a temporary index (never the store's own). */
async function treeWith(
  git: ShadowGit,
  tree: string,
  updates: { path: string; entry: Entry | null }[],
  indexFile: string,
): Promise<string> {
  const env = { GIT_INDEX_FILE: indexFile }
  await git.run(['read-tree', tree], { env })
  const zero = '0'.repeat(40)
  const info = updates
    .map(({ path, entry: e }) => (e === null ? `0 ${zero}\t${path}\0` : `${e.mode} ${e.oid}\t${path}\0`))
    .join('')
  if (info !== '') await git.run(['update-index', '-z', '--index-info'], { env, input: info })
  const out = (await git.text(['write-tree'], { env })).trim()
  if (!SHA.test(out)) throw new AppError('git', `git write-tree gave "${out}", not a tree id.`)
  return out
}

async function commitOf(
  git: ShadowGit,
  tree: string,
  parents: string[],
  message: string,
  now: () => number,
): Promise<string> {
  const seconds = Math.floor(now() / 1000)
  const commit = (
    await git.text(['commit-tree', tree, ...parents.flatMap((p) => ['-p', p])], {
      input: message,
      env: { GIT_AUTHOR_DATE: `@${seconds} +0000`, GIT_COMMITTER_DATE: `@${seconds} +0000` },
    })
  ).trim()
  if (!SHA.test(commit)) throw new AppError('git', `git commit-tree gave "${commit}", not a commit id.`)
  return commit
}
