/** Where Virtuoso's indexes start for a fresh list: far from zero, so older pages can count down from it. */
export const FIRST_INDEX = 1_000_000

/**
 * Virtuoso reads a smaller `firstItemIndex` as "items were put in front" and keeps the view where it was. So the
 * index moves only when the top of the list does: older pages loaded (down), oldest items dropped by a refetch
 * (up). Messages added at the bottom leave it alone. Lists are oldest first.
 */
export function nextFirstIndex<T extends { id: number }>(
  prev: readonly T[],
  prevFirst: number,
  next: readonly T[],
) {
  if (prev.length && next.length) {
    const prepended = next.findIndex((m) => m.id === prev[0]!.id)
    if (prepended >= 0) return prevFirst - prepended
    const dropped = prev.findIndex((m) => m.id === next[0]!.id)
    if (dropped >= 0) return prevFirst + dropped
  }
  return FIRST_INDEX - next.length
}
