import { createHash } from 'node:crypto'
import { statSync } from 'node:fs'
import { isMissing } from '../workspace'
import { walkProjectFiles } from './walk'

// The harness rewrites these every iteration; they say nothing about the model's progress.
const HARNESS_FILES = new Set([
  '.ralph/iteration.txt',
  '.ralph/status.txt',
  '.ralph/feedback.md',
  '.ralph/phase.txt',
  '.ralph/progress.md', // checkpoints: the harness writes them when an iteration fills its context window
])

/**
 * A cheap fingerprint of the project's files (path, size, mtime), for the "no progress" check after iterations
 * that ran shell commands, whose effects the tools cannot report. Skips what snapshots skip.
 */
export async function treeFingerprint(projectDir: string): Promise<string> {
  const fingerprint = fingerprintVisitor()
  await walkProjectFiles(projectDir, fingerprint.visit)
  return fingerprint.digest()
}

/** treeFingerprint as a visitor of walkProjectFiles, for a walk that gathers more than the fingerprint. */
export function fingerprintVisitor(): { visit(rel: string, full: string): void; digest(): string } {
  const hash = createHash('sha256')
  return {
    visit: (rel, full) => {
      if (HARNESS_FILES.has(rel) || rel.endsWith('.lock')) return
      try {
        const st = statSync(full)
        hash.update(`${rel}\0${st.size}\0${st.mtimeMs}\n`)
      } catch (err) {
        // Vanished between listing and stat: not part of the tree any more.
        if (!isMissing(err)) throw err
      }
    },
    digest: () => hash.digest('hex'),
  }
}
