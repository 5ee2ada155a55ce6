import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

// resources/ sits three folders above this file when running from source (tsx, vitest) or bundled into a chunk
// (out/node/chunks/*.js), and two above a bundled entry (out/main/index.js, out/node/*.js). RALPH_RESOURCES_DIR
// overrides them all (packaged apps).
const candidates = ['../../../resources/', '../../resources/'].map((rel) =>
  fileURLToPath(new URL(rel, import.meta.url)),
)

export function resourcesDir(): string {
  const dir = process.env.RALPH_RESOURCES_DIR ?? candidates.find((d) => existsSync(join(d, 'prompts')))
  if (!dir) throw new Error(`The resources folder was not found (looked in ${candidates.join(', ')}).`)
  return dir
}

export const resourcePath = (...parts: string[]) => join(resourcesDir(), ...parts)

const prompts = new Map<string, string>()

/** A prompt file, resources/prompts/<parts>.md (`loadPrompt('brainstorm', 'ideate')`), read once per process. */
export function loadPrompt(...parts: string[]): string {
  const key = parts.join('/')
  let text = prompts.get(key)
  if (text === undefined) {
    const last = parts.length - 1
    text = readFileSync(resourcePath('prompts', ...parts.slice(0, last), `${parts[last]}.md`), 'utf8')
    prompts.set(key, text)
  }
  return text
}

/**
 * A prompt file split at its `<!-- name -->` markers, in the order given (`['system', 'user']`), each part
 * trimmed; null when a marker is missing.
 */
export function promptParts<K extends string>(text: string, names: readonly K[]): Record<K, string> | null {
  const body = names.map((n, i) => `<!-- ${n} -->\\s*([\\s\\S]*${i < names.length - 1 ? '?' : ''})`).join('')
  const m = new RegExp(`${body}$`).exec(text)
  if (!m) return null
  return Object.fromEntries(names.map((n, i) => [n, m[i + 1]!.trim()])) as Record<K, string>
}

/** The app's own folder (package.json, out/): the parent of resources/. */
export const appRoot = (): string => dirname(resourcesDir().replace(/[\\/]+$/, ''))
