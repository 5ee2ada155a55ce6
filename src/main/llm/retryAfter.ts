/** A response header by name, case-insensitively (the AI SDK keeps the server's spelling). */
export function header(headers: Record<string, string> | undefined, name: string): string | undefined {
  if (!headers) return undefined
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value
  return undefined
}

/**
 * The wait a server asked for: `retry-after-ms` (milliseconds), else `Retry-After` as seconds or an HTTP date.
 * Null when absent or unreadable.
 */
export function parseRetryAfter(
  headers: Record<string, string> | undefined,
  now: number = Date.now(),
): number | null {
  const ms = header(headers, 'retry-after-ms')
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms))
  const value = header(headers, 'retry-after')?.trim()
  if (!value) return null
  if (/^\d+(\.\d+)?$/.test(value)) return Math.max(0, Number(value) * 1000)
  const date = Date.parse(value)
  return Number.isNaN(date) ? null : Math.max(0, date - now)
}
