// Nearest-name suggestions ("did you mean <Section>?") for unknown components, gumdrops and schemas.

export function editDistance(a: string, b: string): number {
  if (a === b) return 0
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] ?? 0
    prev[0] = i
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j] ?? 0
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      prev[j] = Math.min(up + 1, (prev[j - 1] ?? 0) + 1, diag + cost)
      diag = up
    }
  }
  return prev[b.length] ?? 0
}

/**
 * Up to `max` candidates closest to `name`, case-insensitively, within a distance that scales with length.
 * Candidates that contain the name (or are contained by it) count as close: "grid" → "grid-list".
 */
export function nearest(name: string, candidates: readonly string[], max = 3): string[] {
  const n = name.toLowerCase()
  const limit = Math.max(2, Math.ceil(n.length / 3))
  return candidates
    .map((c) => {
      const l = c.toLowerCase()
      const d = editDistance(n, l)
      const contains = n.length >= 3 && (l.includes(n) || n.includes(l))
      return { c, d: contains ? Math.min(d, limit) : d }
    })
    .filter((x) => x.d <= limit)
    .sort((a, b) => a.d - b.d || a.c.localeCompare(b.c))
    .slice(0, max)
    .map((x) => x.c)
}

/** " Did you mean X or Y?" (leading space), or '' when nothing is close. */
export function didYouMean(name: string, candidates: readonly string[], wrap = (s: string) => s): string {
  const near = nearest(name, candidates)
  if (near.length === 0) return ''
  const names = near.map(wrap)
  const list =
    names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`
  return ` Did you mean ${list}?`
}
