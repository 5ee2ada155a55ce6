import { isAppError } from '../../shared/errors'
import type { FileSource } from '../plan'
import type { SnapshotEngine } from '../snapshots'

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
