// Builds the CLI and the web host to out/node/ with esbuild, so `ralph` and `npm run web` start from JavaScript
// instead of transpiling src/ at every start. Dependencies stay external (node_modules is always beside it).
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { join, relative } from 'node:path'

const root = new URL('..', import.meta.url).pathname
export const outDir = join(root, 'out', 'node')
/** Written last: its mtime is the build's time, and it exists only after a complete build. */
const stampFile = join(outDir, '.built')
const entryPoints = { cli: 'src/main/cli/entry.ts', web: 'src/main/web/main.ts' }
const sources = ['src/main', 'src/shared', 'package.json', 'package-lock.json']

function newestMtime(full) {
  const stat = statSync(full, { throwIfNoEntry: false })
  if (!stat) return 0
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const entry of readdirSync(full, { withFileTypes: true })) {
    const child = join(full, entry.name)
    // Tests are not part of the build; skipping them keeps a test edit from forcing a rebuild.
    if (entry.isFile() && /\.test\.tsx?$/.test(entry.name)) continue
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(child) : statSync(child).mtimeMs)
  }
  return newest
}

export function nodeBuildIsStale() {
  const built = statSync(stampFile, { throwIfNoEntry: false })
  if (!built) return true
  return sources.some((s) => newestMtime(join(root, s)) > built.mtimeMs)
}

/**
 * Packages stay in node_modules (better-sqlite3 is native; the AI SDK loads only for the commands that call a
 * model), except zod: every command's schemas need it at start, and one bundled file loads in about half the time
 * of zod's many modules. Its registry lives on globalThis, so schemas stay readable by the AI SDK's own zod.
 */
function externals() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const names = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((n) => n !== 'zod')
  return names.flatMap((n) => [n, `${n}/*`])
}

/**
 * Builds into a private folder, then moves the files in: chunk names carry a content hash and the entries move
 * last, so a `ralph` started meanwhile (tests start many at once) always finds a complete, consistent set.
 */
export async function buildNode({ quiet = false } = {}) {
  const { build, stop } = await import('esbuild')
  const staging = join(root, 'out', `.node-build-${process.pid}-${Date.now()}`)
  rmSync(staging, { recursive: true, force: true })
  try {
    await build({
      absWorkingDir: root,
      entryPoints,
      outdir: staging,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20.19',
      external: externals(),
      chunkNames: 'chunks/[name]-[hash]',
      sourcemap: 'linked',
      logLevel: quiet ? 'error' : 'warning',
    })
    mkdirSync(join(outDir, 'chunks'), { recursive: true })
    const files = []
    const collect = (dir) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = join(dir, entry.name)
        if (entry.isDirectory()) collect(full)
        else files.push(relative(staging, full))
      }
    }
    collect(staging)
    // Chunks first, entries last.
    files.sort((a, b) => Number(!a.startsWith('chunks')) - Number(!b.startsWith('chunks')))
    for (const file of files) renameSync(join(staging, file), join(outDir, file))
    writeFileSync(stampFile, `${new Date().toISOString()}\n`)
  } finally {
    rmSync(staging, { recursive: true, force: true })
    // esbuild's service process would otherwise outlive a short command like `ralph --help`.
    await stop()
  }
}

/** Builds when out/node is missing or older than its sources; says so in one line unless quiet. */
export async function ensureNodeBuilt({ quiet = false, who = 'Ralph Studio' } = {}) {
  if (!nodeBuildIsStale()) return false
  const why = existsSync(stampFile) ? 'out/node is older than src/' : 'out/node is missing'
  if (!quiet) process.stderr.write(`${who}: building the CLI and web host from src/ (${why}) …\n`)
  await buildNode({ quiet })
  return true
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildNode()
}
