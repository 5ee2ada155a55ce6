// The lanes build's merge train (issue #38, DESIGN.md §18), its decisions apart from their effects (laneBuild.ts
// carries them out). Finished tasks are merged in queue order onto a chain of candidates: task k's candidate is its
// merge onto task k-1's candidate (or onto the integration state). Each candidate is verified again in its own lane
// at the same time as the others, and the head of the train is applied once its verification passed: so the
// verifications on merged trees overlap, while the applies stay one at a time, in merge order. A FAIL or a conflict
// at task k makes every candidate behind it stale: they are merged again onto the chain without k and verified
// again. Nothing unverified is ever applied, and every applied candidate was verified on exactly the tree applied.
// A task joins the train as soon as its lane's verification has gathered its evidence (its folder is free while the
// model judges), so its verification on the merged tree runs beside the lane's own; it is applied only after both
// passed, and leaves the train (the cars behind it merged again) when the lane's own verdict does not send it to merge.

/** A finished task's place in the train. */
export interface Car {
  taskId: string
  /** The commit it was merged onto: the candidate of the last car ahead of it that counts, or the train's root. */
  base: string
  /** Its candidate: the merged commit, or null when the merge conflicted. */
  commit: string | null
  /**
   * Its verification on the merged tree: not needed (nothing was merged since its lane began: the lane verified
   * this very tree), running, or its outcome.
   */
  check: 'not-needed' | 'running' | 'PASS' | 'NEEDS_HUMAN' | 'FAIL'
  /** Its lane's own verification has not ended yet: it is neither applied nor failed before that verdict. */
  awaiting: boolean
}

/** Whether the car's candidate is part of the chain the cars behind it build on. */
export function counts(car: Car): boolean {
  return car.commit !== null && car.check !== 'FAIL'
}

/** What the next car merges onto: the candidate of the last car that counts, else the root. */
export function tipOf(cars: readonly Car[], root: string): string {
  for (let i = cars.length - 1; i >= 0; i--) if (counts(cars[i]!)) return cars[i]!.commit!
  return root
}

/**
 * The first car whose base is no longer the tip of the cars ahead of it (a car ahead failed, or the root moved):
 * it and every car behind it are merged again. -1: the chain holds.
 */
export function staleFrom(cars: readonly Car[], root: string): number {
  return cars.findIndex((car, i) => car.base !== tipOf(cars.slice(0, i), root))
}

/**
 * What the head of the train does now. `wait`: its verification runs. `apply`: verified (or nothing to verify)
 * and built on the integration state. `fail`: a conflict or a FAIL on the integration state itself, so it is the
 * task's own (a rerun or an escalation, nextAfterMerge decides).
 */
export type HeadStep = 'none' | 'wait' | 'apply' | 'fail'

export function headStep(cars: readonly Car[], root: string): HeadStep {
  const head = cars[0]
  if (!head) return 'none'
  // A head merged onto anything but the root is merged again first (staleFrom), never applied or failed.
  if (head.base !== root || head.awaiting) return 'wait'
  if (head.commit === null || head.check === 'FAIL') return 'fail'
  return head.check === 'running' ? 'wait' : 'apply'
}

/**
 * Where the train stands after its head was applied. The applied folder differs from the candidate only in the
 * build's own files (plan.jsonl, the history, notifications): the cars behind stay on their candidates, and the
 * applied candidate is their root. Other differences (the user's edits kept by the apply) make the applied
 * snapshot the root: every car behind is merged again onto it.
 */
export function rootAfterApply(candidate: string, applied: string, differs: readonly string[]): string {
  return differs.length === 0 ? candidate : applied
}
