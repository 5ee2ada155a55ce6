// Reading a project's plan state from disk: .ralph/plan.tsx, .ralph/gumdrops.json, .ralph/task-counter.txt.
import { parseJsonOr } from '../../shared/json'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { readTextOrNull, resolveInside } from './fileSource'
import { parsePlan } from './parse'
import type { Plan } from './types'
import { validatePlan, type ValidateOptions, type ValidationResult } from './validate'

export const planPathOf = (projectDir: string): string => join(projectDir, '.ralph', 'plan.tsx')

const NOT_JSON = Symbol('not JSON')

/**
 * Allowed gumdrop names from .ralph/gumdrops.json: a list of names, `{ "gumdrops": [...] }`, or an object keyed by
 * name. Null when the file is absent or unreadable (valid-gumdrops then does not run).
 */
export async function readGumdrops(projectDir: string): Promise<string[] | null> {
  const text = await readTextOrNull(join(projectDir, '.ralph', 'gumdrops.json'))
  if (text === null) return null
  const data = parseJsonOr(text, NOT_JSON)
  if (data === NOT_JSON) return null
  const list = Array.isArray(data)
    ? data
    : data && typeof data === 'object' && Array.isArray((data as { gumdrops?: unknown }).gumdrops)
      ? (data as { gumdrops: unknown[] }).gumdrops
      : data && typeof data === 'object'
        ? Object.keys(data)
        : []
  return list.flatMap((x) =>
    typeof x === 'string' ? [x] : x && typeof x === 'object' && 'name' in x ? [String(x.name)] : [],
  )
}

/** The current task number from .ralph/task-counter.txt, or null. */
export async function readTaskNumber(projectDir: string): Promise<number | null> {
  const text = await readTextOrNull(join(projectDir, '.ralph', 'task-counter.txt'))
  const n = text === null ? NaN : Number.parseInt(text.trim(), 10)
  return Number.isFinite(n) && n > 0 ? n : null
}

export function projectFileExists(projectDir: string): (path: string) => boolean {
  return (path) => {
    const full = resolveInside(projectDir, path)
    return full !== null && existsSync(full)
  }
}

export interface ProjectPlan {
  path: string
  /** Null when the file does not exist. */
  text: string | null
  plan: Plan | null
}

export async function loadProjectPlan(
  projectDir: string,
  file = planPathOf(projectDir),
): Promise<ProjectPlan> {
  const text = await readTextOrNull(file)
  return { path: file, text, plan: text === null ? null : parsePlan(text, file) }
}

/** Validation with everything the project folder provides: gumdrops.json, the task number, file existence. */
export async function projectValidateOptions(
  projectDir: string,
  overrides: ValidateOptions = {},
): Promise<ValidateOptions> {
  const taskNumber =
    overrides.taskNumber !== undefined ? overrides.taskNumber : await readTaskNumber(projectDir)
  return {
    taskNumber: taskNumber ?? undefined,
    gumdrops: overrides.gumdrops !== undefined ? overrides.gumdrops : await readGumdrops(projectDir),
    fileExists: overrides.fileExists ?? projectFileExists(projectDir),
  }
}

export async function validateProjectPlan(
  projectDir: string,
  text: string,
  overrides: ValidateOptions = {},
): Promise<ValidationResult> {
  return validatePlan(parsePlan(text), await projectValidateOptions(projectDir, overrides))
}
