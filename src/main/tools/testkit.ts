// Helpers shared by the tool tests: real temp folders, a real snapshot engine.
import { realpathSync } from 'node:fs'
import { afterEach, beforeEach } from 'vitest'
import { SnapshotEngine } from '../snapshots'
import { removeDir, tempProject, write as put } from '../snapshots/testkit'
import { memoryLogger } from '../workspace/logFile'
import type { RunContext, ToolContext } from './types'

export function tempDir(prefix = 'ralph-tools-'): string {
  return realpathSync(tempProject(prefix))
}

export { put, removeDir }

export function makeContext(projectDir: string, overrides: Partial<ToolContext> = {}): RunContext {
  return {
    projectDir,
    signal: new AbortController().signal,
    commandTimeoutMs: 120_000,
    snapshots: new SnapshotEngine({ projectDir, logger: memoryLogger() }),
    taskNumber: 1,
    logger: memoryLogger(),
    ...overrides,
  }
}

/**
 * For each test: a fresh project folder holding `files` and a tool context on it, handed to `use`; the folder is
 * removed afterwards.
 */
export function eachProject(
  use: (project: { root: string; ctx: RunContext }) => void,
  files: Record<string, string | Buffer> = {},
): void {
  let root = ''
  beforeEach(() => {
    root = tempDir()
    for (const [rel, content] of Object.entries(files)) put(root, rel, content)
    use({ root, ctx: makeContext(root) })
  })
  afterEach(() => removeDir(root))
}
