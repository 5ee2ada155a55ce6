import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { realpathSync } from 'node:fs'

/** A fresh real folder under the OS temp dir; `cleanup` removes it. Paths are real (no symlinks) for comparisons. */
export function makeTempDir(prefix = 'ralph-test-'): { path: string; cleanup(): void } {
  const path = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) }
}
