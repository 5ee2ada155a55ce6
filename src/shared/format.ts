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

/**
 * A spend in dollars as people read it: "$0.00" for nothing, "$1.25", "$0.0123" below a dollar, and "under $0.01"
 * for an amount too small for four decimals (never "$0.0000", which reads as free).
 */
export function formatSpend(usd: number): string {
  if (usd <= 0) return '$0.00'
  if (usd >= 1) return `$${usd.toFixed(2)}`
  if (usd < 0.00005) return 'under $0.01'
  return `$${usd.toFixed(4)}`
}

/** The exact local date and time, for a tooltip beside a relative time: "29 Nov 2026, 10:41". */
export function formatWhen(at: number): string {
  return new Date(at).toLocaleString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  })
}
