/** One numbered schema step. Versions are consecutive from 1; a migration is never edited after it ships. */
export interface Migration {
  version: number
  name: string
  up: string
}
