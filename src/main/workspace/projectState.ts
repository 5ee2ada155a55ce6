import { existsSync, readFileSync, statSync } from 'node:fs'
import { opendir } from 'node:fs/promises'
import { join } from 'node:path'
import { type ProjectState, loopStatuses } from '../../shared/project'
import { BUILTIN_EXCLUDED_DIRS } from '../snapshots'
import { ralphDir, ralphPath } from './ralphFiles'
import { isUnreadable } from './failures'

// Folders never worth counting: the snapshot engine's own exclusion list (one source), plus git's and Ralph's state.
const SKIP = new Set<string>(['.git', '.ralph', ...BUILTIN_EXCLUDED_DIRS])

function readTrimmed(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim()
  } catch (err) {
    if (isUnreadable(err)) return null
    throw err
  }
}

async function countFiles(root: string, cap: number): Promise<{ count: number; capped: boolean }> {
  let count = 0
  const stack = [root]
  while (stack.length) {
    const dir = stack.pop()!
    let handle
    try {
      handle = await opendir(dir)
    } catch (err) {
      // A folder that vanished or that we may not read counts as empty.
      if (isUnreadable(err)) continue
      throw err
    }
    for await (const entry of handle) {
      if (entry.isDirectory()) {
        if (!SKIP.has(entry.name)) stack.push(join(dir, entry.name))
      } else if (++count >= cap) {
        return { count, capped: true }
      }
    }
  }
  return { count, capped: false }
}

/**
 * A cheap summary of the project folder for the UI: loop status, phase, task count, git, size. Its newest task run
 * lives in the app's database: the API adds it (api/coreHandlers.ts).
 */
export async function readProjectState(projectDir: string): Promise<Omit<ProjectState, 'lastTask'>> {
  const exists = existsSync(projectDir) && statSync(projectDir).isDirectory()
  if (!exists) {
    return {
      exists,
      status: 'idle',
      phase: null,
      taskCount: 0,
      hasPlan: false,
      isGitRepo: false,
      fileCount: 0,
      fileCountCapped: false,
    }
  }
  const rawStatus = existsSync(ralphDir(projectDir)) ? readTrimmed(ralphPath(projectDir, 'status')) : null
  const status = loopStatuses.find((s) => s === rawStatus) ?? 'idle'
  const rawPhase = readTrimmed(ralphPath(projectDir, 'phase'))
  const phase = rawPhase === 'plan' || rawPhase === 'build' ? rawPhase : null
  const taskCount = Number.parseInt(readTrimmed(ralphPath(projectDir, 'taskCounter')) ?? '0', 10) || 0
  const plan = readTrimmed(ralphPath(projectDir, 'plan'))
  const { count, capped } = await countFiles(projectDir, 10_000)
  return {
    exists,
    status,
    phase,
    taskCount,
    hasPlan: !!plan,
    isGitRepo: existsSync(join(projectDir, '.git')),
    fileCount: count,
    fileCountCapped: capped,
  }
}
