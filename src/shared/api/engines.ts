import { z } from 'zod'
import { projectId, projectOnly } from './common'
import { defineCalls } from './define'

/** The loop's iteration engines (DESIGN.md §9): Ralph's own loop, or the user's installed agent CLI. */
export const engineIds = ['built-in', 'claude-code', 'codex'] as const
export const engineIdSchema = z.enum(engineIds)
export type EngineChoice = z.infer<typeof engineIdSchema>

/** How the UI names each engine. */
export const engineLabels: Record<EngineChoice, string> = {
  'built-in': 'Built-in',
  'claude-code': 'Claude Code',
  codex: 'Codex',
}

/** One agent CLI on this machine, as the host found it on its PATH. */
export const engineInstallSchema = z.object({
  id: z.enum(['claude-code', 'codex']),
  /** "Claude Code", "Codex". */
  label: z.string(),
  installed: z.boolean(),
  path: z.string().nullable(),
  version: z.string().nullable(),
  /** Installed, its version read, and not older than `minVersion`: Ralph can drive it. */
  supported: z.boolean(),
  /** What to do when it is missing, broken or too old (commands in backticks); null when it is ready. */
  hint: z.string().nullable(),
  /** The oldest version Ralph drives. */
  minVersion: z.string(),
  /** When it was not found: the folders looked in (PATH, then the installers' usual folders). */
  searched: z.array(z.string()).optional(),
  /** The program the user pointed at with Locate…, used before PATH; null: none. */
  located: z.string().nullable().optional(),
})
export type EngineInstallInfo = z.infer<typeof engineInstallSchema>

/** A project's engine (`.ralph/config.json` "engine" and "engineModel"; null model: the engine's default). */
export const projectEngineSchema = z.object({
  engine: engineIdSchema,
  engineModel: z.string().nullable(),
})
export type ProjectEngineSetting = z.infer<typeof projectEngineSchema>

export const enginesListSchema = z.object({
  installs: z.array(engineInstallSchema),
  /** The project's setting when a project was named. */
  project: projectEngineSchema.nullable(),
  /** When the installs were last looked up (ms since the epoch): the host keeps the answer for a minute. */
  checkedAt: z.number(),
})
export type EnginesList = z.infer<typeof enginesListSchema>

export const enginesCalls = defineCalls({
  /** The agent CLIs on this machine (cached by the host for a minute; `refresh` looks again now). */
  'engines.list': {
    input: z.object({ projectId: projectId.optional(), refresh: z.boolean().optional() }).strict(),
    output: enginesListSchema,
  },
  /**
   * Locate…: the program to use for one engine, run with `--version` and stored only when Ralph can drive it
   * (invalid-input says why not); null forgets it. Detection and tasks use it before PATH.
   */
  'engines.locate': {
    mutates: true,
    input: z
      .object({
        engine: z.enum(['claude-code', 'codex']),
        path: z.string().trim().min(1, 'Give the full path of the program.').max(4096).nullable(),
      })
      .strict(),
    output: engineInstallSchema,
  },
  /** Only the project's setting: no CLI is asked its version (the header and the status bar read it). */
  'engines.project': { input: projectOnly, output: projectEngineSchema },
  /** The user's choice for one project (the model cannot change it: the file is read-only in the sandbox). */
  'engines.setForProject': {
    mutates: true,
    input: z
      .object({
        projectId,
        engine: engineIdSchema,
        /** The model the engine is asked for; null or blank: its own default; left out: unchanged. */
        engineModel: z.string().max(200).nullable().optional(),
      })
      .strict(),
    output: projectEngineSchema,
  },
})
