// Helpers shared by tests that need a real folder on disk.
import { afterEach, beforeEach } from 'vitest'
import { makeTempDir } from '../../../tests/helpers/tempDir'

/**
 * For each test: a fresh real folder under the OS temp dir, removed afterwards. Read `path` inside a test or a hook
 * (it changes per test).
 */
export function useTempDir(prefix?: string): { readonly path: string } {
  let dir: ReturnType<typeof makeTempDir> | undefined
  beforeEach(() => {
    dir = makeTempDir(prefix)
  })
  afterEach(() => dir?.cleanup())
  return {
    get path(): string {
      if (!dir) throw new Error('useTempDir: the folder exists only inside a test')
      return dir.path
    },
  }
}
