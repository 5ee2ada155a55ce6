// Reads the shadow store the way a person would, with plain git: what the queue's history ref really holds.
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'

export function storeGit(dir: string, ...args: string[]): string {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1' }
  for (const k of Object.keys(env)) if (k.startsWith('GIT_') && k !== 'GIT_CONFIG_NOSYSTEM') delete env[k]
  return execFileSync('git', [`--git-dir=${join(dir, '.ralph/snapshots.git')}`, ...args], {
    encoding: 'utf8',
    env,
  })
}

export const refCount = (dir: string): number => {
  try {
    return Number(storeGit(dir, 'rev-list', '--count', 'refs/ralph/queue').trim())
  } catch {
    return 0
  }
}

export const refHead = (dir: string): string => storeGit(dir, 'rev-parse', 'refs/ralph/queue').trim()

export const fileAt = (dir: string, rev: string): string => storeGit(dir, 'show', `${rev}:plan.jsonl`)
