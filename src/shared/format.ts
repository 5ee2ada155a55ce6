/**
 * Words and numbers as the app writes them, in one place (the CLI, the model's tool results and the renderer
 * share these): counts with their noun, and durations.
 */

/** "1 task", "3 tasks"; `many` for a noun whose plural is not the word plus "s" ("1 match", "2 matches"). */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`
}

/** The other way round, from the plural noun: "1 item", "3 items" from "items" (a trailing "s" dropped for one). */
export function countOf(n: number, nouns: string): string {
  return `${n} ${n === 1 ? nouns.replace(/s$/, '') : nouns}`
}

/** "1 h 59 min", "4 min 05 s", "12 s": a wait as people read it (the CLI and the loop's log lines). */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000))
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = total % 60
  if (h) return `${h} h ${String(m).padStart(2, '0')} min`
  if (m) return `${m} min ${String(s).padStart(2, '0')} s`
  return `${s} s`
}

/** "12s", "4m 05s": a short elapsed time for the chat's cards (minutes keep counting past the hour). */
export function formatDurationShort(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000))
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`
}
