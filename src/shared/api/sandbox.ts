import { z } from 'zod'
import { projectId, projectOnly } from './common'
import { defineCalls } from './define'

/** A project's sandbox settings (`.ralph/config.json` "sandbox"), with the defaults filled in. */
export const sandboxSettingsSchema = z.object({
  /** Which sandbox the model's commands run in on this machine. */
  kind: z.enum(['bubblewrap', 'sandbox-exec', 'none']),
  network: z.boolean(),
  /** Commands may read the project's .env files (the file tools never do). */
  allowEnvFiles: z.boolean(),
  passEnv: z.array(z.string()),
  /** Folders of the home (relative to it) commands may read besides the built-in toolchain list. */
  homeAllow: z.array(z.string()),
  /** The built-in toolchain folders commands may read (relative to the home). */
  toolchainDirs: z.array(z.string()),
  limits: z.object({
    memoryMb: z.number().int(),
    processes: z.number().int(),
    fileSizeMb: z.number().int(),
    tmpMb: z.number().int(),
  }),
})
export type SandboxSettings = z.infer<typeof sandboxSettingsSchema>

export const sandboxCalls = defineCalls({
  'sandbox.get': { input: projectOnly, output: sandboxSettingsSchema },
  /** The user's own choice (the model cannot reach it: the file is read-only in the sandbox). */
  'sandbox.set': {
    mutates: true,
    input: z
      .object({ projectId, allowEnvFiles: z.boolean().optional(), network: z.boolean().optional() })
      .strict(),
    output: sandboxSettingsSchema,
  },
})
