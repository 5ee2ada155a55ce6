import type { PruneResult } from '../../../../shared/api/snapshots'
import { formatSize } from './compareRange'
import { plural } from './rows'

/** What a clean-up did, in one sentence: "Freed 3.2 MB (12.0 MB → 8.8 MB) and removed 5 snapshots." */
export function cleanUpSummary(result: PruneResult): string {
  const freed = Math.max(0, result.bytesBefore - result.bytesAfter)
  const removed = result.removedTags.length
  const what =
    removed === 0 ? 'no snapshot was old enough to remove' : `removed ${plural(removed, 'snapshot')}`
  return freed === 0
    ? `Nothing to free: ${what}.`
    : `Freed ${formatSize(freed)} (${formatSize(result.bytesBefore)} → ${formatSize(result.bytesAfter)}); ${what}.`
}

/** The clean-up's defaults: manual and safety snapshots older than a month, beyond the newest 20 of each. */
export const CLEAN_UP_DEFAULTS = { olderThanDays: 30, keepLast: 20 }
