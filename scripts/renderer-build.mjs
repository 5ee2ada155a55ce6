// Builds out/renderer with Vite when it is missing or older than any renderer/shared source file.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const output = join(root, 'out', 'renderer', 'index.html')
const sources = ['src/renderer', 'src/shared', 'vite.renderer.config.ts', 'package-lock.json']

function newestMtime(path) {
  const full = join(root, path)
  if (!existsSync(full)) return 0
  const stat = statSync(full)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const entry of readdirSync(full)) newest = Math.max(newest, newestMtime(join(path, entry)))
  return newest
}

export function rendererIsStale() {
  if (!existsSync(output)) return true
  const built = statSync(output).mtimeMs
  return sources.some((s) => newestMtime(s) > built)
}

export function ensureRendererBuilt({ quiet = false } = {}) {
  if (!rendererIsStale()) return false
  if (!quiet) console.log('Building the renderer …')
  execFileSync(
    process.execPath,
    [
      join(root, 'node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      '-c',
      'vite.renderer.config.ts',
      '--logLevel',
      quiet ? 'error' : 'warn',
    ],
    {
      cwd: root,
      stdio: 'inherit',
      // Always a production React: vitest's global setup runs this with NODE_ENV=test, which would otherwise
      // build React's development bundle (several times slower; it skewed bench:ui).
      env: { ...process.env, NODE_ENV: 'production' },
    },
  )
  return true
}
