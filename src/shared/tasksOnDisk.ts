import type { SnapshotMeta } from './api/snapshots'

type Entry = Pick<SnapshotMeta, 'tag' | 'kind' | 'task' | 'rollbackTarget'>

/**
 * The completed tasks whose work is no longer in the folder: a rollback went back to before it, and no Undo has
 * brought it back. Read from the snapshot history alone (oldest first): a task's post snapshot puts its work on
 * disk; every rollback (an Undo too) first takes a safety snapshot naming its target, after which the folder holds
 * what it held when the target was taken.
 */
export function rolledBackTasks(oldestFirst: readonly Entry[]): Set<number> {
  let onDisk = new Set<number>()
  const completed = new Set<number>()
  const at = new Map<string, Set<number>>()
  for (const s of oldestFirst) {
    at.set(s.tag, onDisk)
    if (s.kind === 'safety' && s.rollbackTarget !== null) {
      // A target the history no longer holds (pruned): its state cannot be known, so nothing changes.
      onDisk = at.get(s.rollbackTarget) ?? onDisk
    } else if (s.kind === 'task-post' && s.task !== null) {
      onDisk = new Set(onDisk).add(s.task)
      completed.add(s.task)
      at.set(s.tag, onDisk)
    }
  }
  return new Set([...completed].filter((task) => !onDisk.has(task)))
}
