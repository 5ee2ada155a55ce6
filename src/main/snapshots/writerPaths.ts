/**
 * Which steps of a snapshot write run in-process rather than through git (scripts/bench-snapshot-paths.ts
 * measures each both ways inside one long-running process; tests switch a step off to exercise git's path).
 * Every in-process step falls back to git on its own whenever it cannot do the work.
 */
export const inProcessWriter = {
  /** A first snapshot's index and trees written directly after fast-import stored the blobs (prepack.ts). */
  firstSave: true,
  /** An incremental pass's blobs, trees and index written here instead of update-index + write-tree. */
  stage: true,
}
