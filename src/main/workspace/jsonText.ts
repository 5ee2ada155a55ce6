/**
 * JSON text that may not be JSON (a provider's error body, a model's answer): the parsed value, or `fallback` when
 * the text does not parse. `JSON.parse` of a string fails only with a SyntaxError; anything else is thrown.
 */
export function parseJsonOr<F>(text: string, fallback: F): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch (err) {
    if (err instanceof SyntaxError) return fallback
    throw err
  }
}
