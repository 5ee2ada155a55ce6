import { z } from 'zod'
import { projectId, projectOnly } from './common'
import { defineCalls, defineEvents } from './define'
import { projectDetailSchema, projectPathSchema, projectSchema } from '../project'
import {
  connectionResultSchema,
  localServerSchema,
  providerIdSchema,
  providerSettingsSchema,
  providerStateSchema,
} from '../settings'

const empty = z.object({}).strict()

export const appInfoSchema = z.object({
  version: z.string(),
  host: z.enum(['electron', 'web']),
  /** The desktop app can show a native folder picker; the browser uses the path field. */
  nativeFolderPicker: z.boolean(),
  /** The desktop app can show a native file picker too (Settings → Engine → Locate…); absent: it cannot. */
  nativeFilePicker: z.boolean().optional(),
  appDataDir: z.string(),
  platform: z.string(),
  /** The sandbox the model's commands run in here; `none` says why (DESIGN.md §14: the UI says so plainly). */
  sandbox: z.object({ kind: z.enum(['bubblewrap', 'sandbox-exec', 'none']), reason: z.string().nullable() }),
})
export type AppInfo = z.infer<typeof appInfoSchema>

export const coreCalls = defineCalls({
  'app.info': { input: empty, output: appInfoSchema },
  'projects.list': { input: empty, output: z.array(projectSchema) },
  /**
   * A folder that looks like a home folder fails with invalid-input and details { needsConfirmation:
   * 'home-like', path, signs } until it is opened again with confirmHomeLike (the UI asks the user).
   */
  'projects.open': {
    input: z.object({ path: projectPathSchema, confirmHomeLike: z.boolean().optional() }).strict(),
    output: projectDetailSchema,
  },
  'projects.get': { input: projectOnly, output: projectDetailSchema },
  'projects.forget': { mutates: true, input: projectOnly, output: z.object({ ok: z.literal(true) }) },
  'dialog.pickFolder': { input: empty, output: z.object({ path: z.string().nullable() }) },
  /** The desktop app's file picker (a program for Locate…); null when the user cancels. */
  'dialog.pickFile': {
    input: z.object({ title: z.string().trim().min(1).max(200) }).strict(),
    output: z.object({ path: z.string().nullable() }),
  },
  'settings.getProvider': { input: empty, output: providerStateSchema },
  'settings.setProvider': {
    mutates: true,
    input: z.object({
      settings: providerSettingsSchema,
      /** undefined: keep the stored key; null: delete it; a string: store it. */
      apiKey: z.string().trim().min(1, 'API key must not be empty.').nullable().optional(),
    }),
    output: providerStateSchema,
  },
  'settings.testConnection': {
    input: z.object({ settings: providerSettingsSchema, apiKey: z.string().optional() }),
    output: connectionResultSchema,
  },
  'settings.detectLocal': { input: empty, output: z.array(localServerSchema) },
  /** The models a provider's server lists (OpenAI-compatible `GET {base}/models`, Ollama `GET /api/tags`). */
  'settings.listModels': {
    input: z.object({
      provider: providerIdSchema,
      baseUrl: providerSettingsSchema.shape.baseUrl,
      /** The key as typed; absent: the stored one. */
      apiKey: z.string().optional(),
    }),
    output: z.object({ models: z.array(z.string()) }),
  },
})

export const coreEvents = defineEvents({
  'projects.changed': z.object({ projectId: projectId.nullable() }),
  'settings.changed': z.object({ key: z.string() }),
})
