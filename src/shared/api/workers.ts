import { z } from 'zod'
import { projectId, projectOnly } from './common'
import { defineCalls } from './define'
import { workerBackends, workersConfigSchema } from '../workersConfig'

/**
 * Settings → Workers (issue #39, DESIGN.md §18): a project's `.ralph/config.json` "workers", the vault's secret names
 * a user may tick for remote workers, and the backend check `ralph workers test` runs.
 */

/** What Settings shows: the saved settings (defaults filled in), or the defaults and why the file could not be read. */
export const workersSettingsSchema = z.object({
  config: workersConfigSchema,
  /** Why the project's "workers" could not be read (the defaults are shown instead); null when it could. */
  problem: z.string().nullable(),
  /** The names of the vault's secrets (for `${NAME}` placeholders of MCP servers); values never leave the core. */
  secretNames: z.array(z.string()),
})
export type WorkersSettings = z.infer<typeof workersSettingsSchema>

/** The outcome of a backend check, as `ralph workers test` says it. */
export const workersCheckSchema = z.object({
  backend: z.enum(workerBackends),
  ok: z.boolean(),
  /** The check was stopped before it ended. */
  stopped: z.boolean(),
  /** Where jobs would run (`docker: host`, `k8s: context/namespace`, `local`); null when it could not be told. */
  where: z.string().nullable(),
  /** What the check found, or what is wrong, in one sentence. */
  summary: z.string(),
  /** What to do about it, when the check's message says (null otherwise). */
  advice: z.string().nullable().default(null),
  durationMs: z.number(),
})
export type WorkersCheck = z.infer<typeof workersCheckSchema>

export const workersCalls = defineCalls({
  'workers.get': { input: projectOnly, output: workersSettingsSchema },
  /** Writes only the "workers" field of the project's config.json; a bad value is refused and nothing is written. */
  'workers.set': {
    mutates: true,
    input: z.object({ projectId, workers: workersConfigSchema }).strict(),
    output: workersSettingsSchema,
  },
  /**
   * Checks a backend with the given settings (saved or not): reaches the Docker engine or the cluster, finds the
   * image, runs a no-op job. One check per project at a time; `workers.stopTest` stops it.
   */
  'workers.test': {
    mutates: true,
    input: z.object({ projectId, workers: workersConfigSchema }).strict(),
    output: workersCheckSchema,
  },
  'workers.stopTest': {
    input: projectOnly,
    output: z.object({ stopped: z.boolean() }),
  },
})
