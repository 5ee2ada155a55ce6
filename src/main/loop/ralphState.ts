import { appendFile, readFile } from 'node:fs/promises'
import { z } from 'zod'
import { engineSettingShape } from '../engines'
import { sandboxConfigSchema } from '../sandbox'
import { rulesSettingSchema } from './rulesFiles'
import {
  writeFileAtomic,
  isMissing,
  defaultLoopConfig,
  parseConfigJson,
  ralphPath,
  type RalphFile,
} from '../workspace'

export type Phase = 'plan' | 'build'
/** `interrupted`: set by crash recovery when the process running the task died (lifecycle.ts). */
export type Status = 'running' | 'complete' | 'failed' | 'waiting' | 'interrupted'

export const loopConfigSchema = z.object({
  commands: z
    .object({
      build: z.string().nullable().default(null),
      test: z.string().nullable().default(null),
      lint: z.string().nullable().default(null),
    })
    .default(defaultLoopConfig.commands),
  maxIterations: z.number().int().positive().max(10_000).default(defaultLoopConfig.maxIterations),
  maxToolCallsPerIteration: z
    .number()
    .int()
    .positive()
    .max(1000)
    .default(defaultLoopConfig.maxToolCallsPerIteration),
  stallThreshold: z.number().int().min(2).max(100).default(defaultLoopConfig.stallThreshold),
  commandTimeoutMs: z.number().int().positive().default(defaultLoopConfig.commandTimeoutMs),
  /** Iterations in a row without any file change before the "no progress" path (not in DESIGN §11's list). */
  noProgressIterations: z.number().int().min(2).default(5),
  /**
   * The longest a task waits for a provider's usage limit to reset (a 429 with a long reset), in minutes. A reset
   * further away fails the task instead; 0 turns waiting off (like `ralph run --no-wait`).
   */
  limitWaitMaxMinutes: z.number().int().min(0).max(10_080).default(720),
  /** Consecutive quality-gate failures before the task fails. */
  maxGateFailures: z.number().int().positive().default(3),
  /** Read by the sandbox itself (src/main/sandbox/config.ts); validated here so a typo is the user's to fix. */
  sandbox: sandboxConfigSchema.default(defaultLoopConfig.sandbox),
  /** Checked with the rest at task start, so a broken entry stops the task before any model call. */
  rules: rulesSettingSchema.optional(),
  /** The iteration engine (DESIGN.md §9): the AI SDK loop or the user's own agent CLI. */
  ...engineSettingShape,
})
export type LoopConfig = z.infer<typeof loopConfigSchema>

/** Typed access to the `.ralph/` state files (DESIGN.md §6). Every write is atomic. */
export class RalphState {
  constructor(readonly projectDir: string) {}

  async read(file: RalphFile, fallback = ''): Promise<string> {
    try {
      return await readFile(ralphPath(this.projectDir, file), 'utf8')
    } catch (err) {
      // Not written yet (a new task, a project without a plan): the fallback is its content.
      if (isMissing(err)) return fallback
      throw err
    }
  }

  write(file: RalphFile, content: string): Promise<void> {
    return writeFileAtomic(ralphPath(this.projectDir, file), content)
  }

  async phase(): Promise<Phase> {
    return (await this.read('phase')).trim() === 'build' ? 'build' : 'plan'
  }

  setPhase(phase: Phase): Promise<void> {
    return this.write('phase', `${phase}\n`)
  }

  async status(): Promise<string> {
    return (await this.read('status')).trim()
  }

  setStatus(status: Status): Promise<void> {
    return this.write('status', `${status}\n`)
  }

  setIteration(n: number): Promise<void> {
    return this.write('iteration', `${n}\n`)
  }

  async taskCounter(): Promise<number> {
    const n = Number.parseInt((await this.read('taskCounter', '0')).trim(), 10)
    return Number.isFinite(n) && n > 0 ? n : 0
  }

  setTaskCounter(n: number): Promise<void> {
    return this.write('taskCounter', `${n}\n`)
  }

  async plan(): Promise<string> {
    return this.read('plan')
  }

  appendHistory(line: string): Promise<void> {
    return appendFile(ralphPath(this.projectDir, 'taskHistory'), line.endsWith('\n') ? line : `${line}\n`)
  }

  /** `.ralph/config.json`, with defaults for what it leaves out; a broken file is an error the user can fix. */
  async config(): Promise<LoopConfig> {
    return parseConfigJson(await this.read('config', '{}'), loopConfigSchema)
  }
}
