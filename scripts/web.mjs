// `npm run web`: builds the renderer and the host when their sources changed, then starts the compiled web host
// (out/node/web.js). RALPH_FROM_SOURCE=1 runs the host's TypeScript through tsx instead (development).
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { ensureNodeBuilt } from './node-build.mjs'
import { ensureRendererBuilt } from './renderer-build.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))

/** Starts the web host with the given arguments; resolves with its exit code. */
export async function startWebHost(args) {
  ensureRendererBuilt()
  const fromSource = process.env.RALPH_FROM_SOURCE === '1'
  if (!fromSource) await ensureNodeBuilt({ who: 'npm run web' })
  const entry = fromSource ? ['--import', 'tsx', 'src/main/web/main.ts'] : ['out/node/web.js']
  const child = spawn(process.execPath, [...entry, ...args], { cwd: root, stdio: 'inherit' })
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 130 : 1))))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exit(await startWebHost(process.argv.slice(2)))
}
