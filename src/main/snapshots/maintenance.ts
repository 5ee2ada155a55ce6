import type { ShadowGit } from './git'
import type { PruneOptions, SnapshotMeta } from './types'

// Store maintenance: which snapshots a prune removes (decided here, from the list), and the git work after it.

/**
 * The tags a prune removes: manual and safety snapshots (never task-* or stall-*) older than the cutoff and
 * beyond the newest `keepLast` of their kind. The undo target and the current position are always kept.
 * `all` is newest first, as the engine lists it.
 */
export function pruneCandidates(
  all: readonly SnapshotMeta[],
  head: string | null,
  options: Pick<PruneOptions, 'olderThanDays' | 'keepLast'>,
  now: number,
): string[] {
  const undoTarget = all.find((s) => s.kind === 'safety' && s.rollbackTarget !== null)
  const cutoff = options.olderThanDays !== undefined ? now - options.olderThanDays * 86_400_000 : null
  const remove: string[] = []
  if (cutoff === null && options.keepLast === undefined) return remove
  for (const kind of ['manual', 'safety'] as const) {
    const ofKind = all.filter((s) => s.kind === kind)
    ofKind.forEach((s, i) => {
      // Undo must keep working, and the current position keeps its name.
      if (s.tag === undoTarget?.tag || s.commit === head) return
      const old = cutoff === null || s.createdAt < cutoff
      const beyond = options.keepLast === undefined || i >= options.keepLast
      if (old && beyond) remove.push(s.tag)
    })
  }
  return remove
}

/** Deletes the tags, then packs refs and objects and drops every object no snapshot reaches any more. */
export async function pruneStore(
  git: ShadowGit,
  remove: readonly string[],
  afterTags: () => Promise<void>,
): Promise<void> {
  if (remove.length > 0) {
    await git.run(['update-ref', '--stdin'], { input: remove.map((t) => `delete refs/tags/${t}\n`).join('') })
    await afterTags()
  }
  await git.run(['pack-refs', '--all', '--prune'])
  await git.run(['repack', '-a', '-d', '-q'])
  await git.run(['prune', '--expire=now'])
}
