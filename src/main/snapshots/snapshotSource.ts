import { isAppError } from '../../shared/errors'
import type { FileSource } from '../plan'
import type { SnapshotEngine } from './engine'

/** Files as they were at a snapshot tag, for the scope gates' "before" side. Missing files read as null. */
export function snapshotSource(engine: SnapshotEngine, tag: string): FileSource {
  return {
    async read(path) {
      try {
        const shown = await engine.show(tag, path)
        return shown.binary ? null : shown.content.toString('utf8')
      } catch (err) {
        if (isAppError(err, 'not-found') || isAppError(err, 'invalid-input')) return null
        throw err
      }
    },
  }
}

/** True when the tag exists in the project's snapshot store. */
export async function hasTag(engine: SnapshotEngine, tag: string): Promise<boolean> {
  const { items } = await engine.list({ limit: 1_000_000 })
  return items.some((s) => s.tag === tag)
}
