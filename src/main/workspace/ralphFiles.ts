import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { z } from 'zod'
import { describeIssues } from '../../shared/describeIssues'
import { AppError } from '../../shared/errors'
import { ifMissing } from './failures'

/** The `.ralph/` state files of DESIGN.md §6. Other modules use these names, never string literals of their own. */
export const RALPH_DIR = '.ralph'

export const ralphFiles = {
  origin: 'origin.md',
  task: 'task.md',
  plan: 'plan.tsx',
  summary: 'summary.md',
  feedback: 'feedback.md',
  status: 'status.txt',
  iteration: 'iteration.txt',
  phase: 'phase.txt',
  taskCounter: 'task-counter.txt',
  taskHistory: 'task-history.md',
  /** Checkpoints of the running task's iterations (context budget); cleared when a task starts. */
  progress: 'progress.md',
  config: 'config.json',
  gitignore: '.gitignore',
} as const

export type RalphFile = keyof typeof ralphFiles

/**
 * The harness's lock files and the temp files of its atomic writes, by name inside `.ralph/`: they come and go at
 * any moment and are never state (snapshots leave them out, an engine session never gets a copy).
 */
export const isTransientRalphFile = (name: string): boolean => name.endsWith('.lock') || name.endsWith('.tmp')

export const ralphDir = (projectDir: string) => join(projectDir, RALPH_DIR)
export const ralphPath = (projectDir: string, file: RalphFile) =>
  join(projectDir, RALPH_DIR, ralphFiles[file])

export const defaultLoopConfig = {
  commands: { build: null, test: null, lint: null },
  maxIterations: 50,
  maxToolCallsPerIteration: 50,
  stallThreshold: 3,
  commandTimeoutMs: 120000,
  /** The sandbox of the model's commands (src/main/sandbox): network on or off, variables passed through. */
  sandbox: { network: true, passEnv: [] as string[] },
}

/** `.ralph/config.json`'s text read against a schema; a broken file is a config error the user can fix. */
export function parseConfigJson<T>(raw: string, schema: z.ZodType<T>): T {
  let json: unknown
  try {
    json = JSON.parse(raw || '{}')
  } catch (err) {
    throw new AppError(
      'config',
      `.ralph/config.json is not valid JSON (${(err as Error).message}). Fix it or delete it.`,
    )
  }
  const parsed = schema.safeParse(json)
  if (!parsed.success)
    throw new AppError('config', `.ralph/config.json: ${describeIssues(parsed.error.issues)}`)
  return parsed.data
}

/** The project's `.ralph/config.json` read against a schema; no file reads as `{}` (every default applies). */
export async function readConfigJson<T>(projectDir: string, schema: z.ZodType<T>): Promise<T> {
  const raw = await readFile(ralphPath(projectDir, 'config'), 'utf8').catch(ifMissing('{}'))
  return parseConfigJson(raw, schema)
}
