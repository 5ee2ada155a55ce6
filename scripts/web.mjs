// `npm run web`: builds the renderer when its sources changed, then starts the web host (src/main/web/main.ts).
import { spawn } from 'node:child_process'
import { ensureRendererBuilt } from './renderer-build.mjs'

ensureRendererBuilt()
const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/web/main.ts', ...process.argv.slice(2)], {
  stdio: 'inherit',
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 130 : 1)))
