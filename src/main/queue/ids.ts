import { randomInt } from 'node:crypto'

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz'

export type RandomChars = (length: number) => string

export const cryptoChars: RandomChars = (length) =>
  Array.from({ length }, () => ALPHABET[randomInt(ALPHABET.length)]).join('')

/**
 * A new `t-xxxx` / `i-xxxx` id no line of the file uses. Four random characters as seed 001 says; when a
 * crowded queue keeps colliding, the suffix grows instead of looping forever.
 */
export function newId(
  prefix: 't' | 'i',
  taken: ReadonlySet<string>,
  random: RandomChars = cryptoChars,
): string {
  for (let length = 4; ; length++) {
    for (let attempt = 0; attempt < 16; attempt++) {
      const id = `${prefix}-${random(length)}`
      if (!taken.has(id)) return id
    }
  }
}
