// A lane's result as a commit of the shadow store, and its merge onto the integration state with
// `git merge-tree --write-tree` (git ≥ 2.38): the merged tree is written to the store's objects and no work tree,
// index or ref is touched. Git 2.39 has no --merge-base, so the merge base comes from history: a lane's result
// commit has the lane's base as its parent, and the integration state descends from that base.
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import type { ShadowGit } from '../snapshots'
import type { LaneGit } from './laneCopy'
import type { LaneMarker } from './laneFolder'
import type { MergeOutcome } from './mergeDecision'

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
  const f = out.split('\0')
  const tree = f[0] ?? ''
  if (!SHA.test(tree)) throw new AppError('git', `git merge-tree gave no tree (exit ${code}).`)
  if (code === 0) return { kind: 'clean', tree }
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
  return { kind: 'conflict', conflicts: conflicts.sort((a, b) => a.path.localeCompare(b.path)) }
}
