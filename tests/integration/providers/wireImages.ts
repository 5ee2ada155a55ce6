// The images a recorded request carries, read where each wire format puts them (issue 27).
import type { ProviderId } from '../../../src/shared/settings'
import { DEFAULT_OLLAMA_MODELS, startOllamaServer, type OllamaModel } from '../../fixtures/wire/ollamaServer'
import type { ProviderCase } from './wire'

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Every object in a JSON tree, depth first. */
function objects(node: unknown): Json[] {
  if (Array.isArray(node)) return node.flatMap(objects)
  if (!isObject(node)) return []
  return [node, ...Object.values(node).flatMap(objects)]
}

/** The images a request carries, as base64 with their media type where the format says it, read as each service takes them. */
export function wireImages(provider: ProviderId, body: Json): { mediaType: string | null; base64: string }[] {
  const dataUrl = (url: string) => {
    const m = /^data:([^;]+);base64,(.*)$/.exec(url)
    return m
      ? { mediaType: m[1]!, base64: m[2]! }
      : { mediaType: null, base64: `(not a data URL: ${url.slice(0, 40)})` }
  }
  switch (provider) {
    case 'anthropic':
      // {"type":"image","source":{"type":"base64","media_type":"image/png","data":"…"}}
      return objects(body.messages)
        .filter((o) => o.type === 'image' && isObject(o.source) && o.source.type === 'base64')
        .map((o) => {
          const source = o.source as Json
          return { mediaType: String(source.media_type), base64: String(source.data) }
        })
    case 'openai':
      // {"type":"input_image","image_url":"data:image/png;base64,…"}
      return objects(body.input)
        .filter((o) => o.type === 'input_image')
        .map((o) => dataUrl(String(o.image_url)))
    case 'ollama':
      // {"role":"user","content":"…","images":["…"]}
      return (Array.isArray(body.messages) ? body.messages.filter(isObject) : []).flatMap((m) =>
        Array.isArray(m.images) ? m.images.map((b) => ({ mediaType: null, base64: String(b) })) : [],
      )
    default:
      // chat completions: {"type":"image_url","image_url":{"url":"data:image/png;base64,…"}}
      return objects(body.messages)
        .filter((o) => o.type === 'image_url' && isObject(o.image_url))
        .map((o) => dataUrl(String((o.image_url as Json).url)))
  }
}

/** An Ollama model whose `/api/show` lists the `vision` capability (llama3.1, the fake's default, does not). */
export const OLLAMA_VISION_MODEL: OllamaModel = {
  name: 'gemma3:4b',
  arch: 'gemma3',
  contextLength: 131_072,
  vision: true,
}

/** A provider case with a model that sees images: the same, except native Ollama, which gets a vision model. */
export function visionCase(c: ProviderCase): ProviderCase {
  if (c.provider !== 'ollama') return c
  return {
    ...c,
    model: OLLAMA_VISION_MODEL.name,
    start: () =>
      startOllamaServer({
        models: [...DEFAULT_OLLAMA_MODELS.map((m) => ({ ...m })), { ...OLLAMA_VISION_MODEL }],
      }),
  }
}
