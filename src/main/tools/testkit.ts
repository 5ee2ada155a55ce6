// Helpers shared by the tool tests: real temp folders, a real snapshot engine.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach } from 'vitest'
import { SnapshotEngine } from '../snapshots'
import { memoryLogger } from '../workspace/logFile'
import type { RunContext, ToolContext } from './types'

export function tempDir(prefix = 'ralph-tools-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)))
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
}

export function put(root: string, rel: string, content: string | Buffer): void {
  const file = join(root, rel)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, content)
}

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
