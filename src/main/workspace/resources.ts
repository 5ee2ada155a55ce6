import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

// resources/ sits three folders above this file when running from source (tsx, vitest), and two above the
// bundled Electron main (out/main/index.js). RALPH_RESOURCES_DIR overrides both (packaged apps).
const candidates = ['../../../resources/', '../../resources/'].map((rel) =>
  fileURLToPath(new URL(rel, import.meta.url)),
)

export function resourcesDir(): string {
  const dir = process.env.RALPH_RESOURCES_DIR ?? candidates.find((d) => existsSync(join(d, 'prompts')))
  if (!dir) throw new Error(`The resources folder was not found (looked in ${candidates.join(', ')}).`)
  return dir
}

export const resourcePath = (...parts: string[]) => join(resourcesDir(), ...parts)
