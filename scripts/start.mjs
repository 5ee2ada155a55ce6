// `npm start`: makes sure the Electron binary and an Electron-ABI database driver exist, builds the app, opens it.
// Anything that cannot be done here ends in one clear sentence, never a stack trace.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { ensureElectronBinding } from './electron-native.mjs'

const root = new URL('..', import.meta.url).pathname
const require = createRequire(import.meta.url)

function fail(sentence) {
  console.error(
    `Ralph Studio cannot start the desktop app: ${sentence}. The browser version works without it: npm run web`,
  )
  process.exit(1)
}

function electronBinary() {
  const pkg = join(root, 'node_modules', 'electron')
  const pathFile = join(pkg, 'path.txt')
  const binary = () =>
    existsSync(pathFile) ? join(pkg, 'dist', require('node:fs').readFileSync(pathFile, 'utf8')) : null
  if (binary() && existsSync(binary())) return binary()
  console.log('Downloading the Electron binary (one time) …')
  const result = spawnSync(process.execPath, [join(pkg, 'install.js')], { stdio: 'pipe', env: process.env })
  if (result.status !== 0 || !binary() || !existsSync(binary())) {
    fail(
      'the Electron binary is not installed and could not be downloaded (are you offline?); run `npx install-electron` when online',
    )
  }
  return binary()
}

const electron = electronBinary()
let nativeBinding
try {
  nativeBinding = ensureElectronBinding()
} catch (err) {
  fail(err.message)
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
