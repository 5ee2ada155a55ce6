import { existsSync } from 'node:fs'
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

/** The app's own folder (package.json, out/): the parent of resources/. */
export const appRoot = (): string => dirname(resourcesDir().replace(/[\\/]+$/, ''))
