/**
 * JSON text that may not be JSON (a stored column, a file a person edits): `fallback` when it does not parse.
 * Only a syntax error is expected here; anything else is thrown.
 */
export function parseJsonOr<F>(text: string, fallback: F): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch (err) {
    if (err instanceof SyntaxError) return fallback
    throw err
  }
}
