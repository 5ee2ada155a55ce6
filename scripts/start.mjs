// `npm start`: makes sure the Electron binary and an Electron-ABI database driver exist, builds the app, opens it.
// Where the desktop app cannot run (no display, no Electron binary and no network to fetch it), it says why in one
// sentence and starts the web host instead, which prints its URL: the README's run command works on any machine.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { ensureElectronBinding } from './electron-native.mjs'
import { startWebHost } from './web.mjs'

const root = new URL('..', import.meta.url).pathname
const require = createRequire(import.meta.url)

async function fallBackToWeb(sentence) {
  console.error(`Ralph Studio cannot open the desktop app here: ${sentence}. Starting the web host instead.`)
  process.exit(await startWebHost(process.argv.slice(2)))
}

function fail(sentence) {
  console.error(`Ralph Studio cannot start the desktop app: ${sentence}.`)
  process.exit(1)
}

const noDisplay =
  process.platform === 'linux' &&
  !process.env.DISPLAY &&
  !process.env.WAYLAND_DISPLAY &&
  !process.env.MIR_SOCKET
if (noDisplay) await fallBackToWeb('there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)')

function electronBinary() {
  const pkg = join(root, 'node_modules', 'electron')
  const pathFile = join(pkg, 'path.txt')
  const binary = () =>
    existsSync(pathFile) ? join(pkg, 'dist', require('node:fs').readFileSync(pathFile, 'utf8')) : null
  if (binary() && existsSync(binary())) return binary()
  console.log('Downloading the Electron binary (one time) …')
  const result = spawnSync(process.execPath, [join(pkg, 'install.js')], { stdio: 'pipe', env: process.env })
  if (result.status !== 0 || !binary() || !existsSync(binary())) return null
  return binary()
}

const electron = electronBinary()
if (!electron) {
  await fallBackToWeb(
    'the Electron binary is not installed and could not be downloaded (offline?); `npx install-electron` fetches it when online',
  )
}
let nativeBinding
try {
  nativeBinding = ensureElectronBinding()
} catch (err) {
  await fallBackToWeb(err.message)
}
const build = spawnSync(
  process.execPath,
  [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build', '--logLevel', 'warn'],
  {
    cwd: root,
    stdio: 'inherit',
  },
)
if (build.status !== 0) fail('the app could not be built (see the messages above)')

const child = spawn(electron, [root, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, RALPH_NATIVE_BINDING: nativeBinding },
})
child.on('exit', (code) => process.exit(code ?? 0))
