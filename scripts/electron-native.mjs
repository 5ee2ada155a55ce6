// Builds better-sqlite3 for Electron's ABI into .electron-native/<electron version>/, leaving Node's own build in
// node_modules untouched (Node tests and the CLI keep working). The app loads it through `nativeBinding`.
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, copyFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { createRequire } from 'node:module'

const root = new URL('..', import.meta.url).pathname

export function electronVersion() {
  return JSON.parse(readFileSync(join(root, 'node_modules', 'electron', 'package.json'), 'utf8')).version
}

export function electronBindingPath() {
  return join(root, '.electron-native', electronVersion(), 'better_sqlite3.node')
}

// A binary that Node itself can load was built for Node's ABI, not Electron's: Electron would crash on it.
function assertNotNodeAbi(file) {
  const require = createRequire(import.meta.url)
  let loaded = false
  try {
    require(file)
    loaded = true
  } catch {
    // expected: a different ABI
  }
  if (loaded) throw new Error('compiled against Node headers instead of Electron headers')
}

/** Returns the binding path, building it first when missing. Throws with a one-sentence reason on failure. */
export function ensureElectronBinding({ log = console.log } = {}) {
  const target = electronBindingPath()
  if (existsSync(target)) return target
  const version = electronVersion()
  const work = join(root, '.electron-native', 'build-better-sqlite3')
  rmSync(work, { recursive: true, force: true })
  cpSync(join(root, 'node_modules', 'better-sqlite3'), work, {
    recursive: true,
    filter: (src) => !src.includes(`${join('better-sqlite3', 'build')}`),
  })
  log(`Preparing the database driver for Electron ${version} (one time) …`)
  // A machine-wide nodedir (npm config, exported by npm as npm_config_nodedir) would silently compile against
  // Node's headers and give a Node-ABI binary, so node-gyp runs directly with that variable removed.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => k.toLowerCase() !== 'npm_config_nodedir'),
  )
  const quiet = { cwd: work, stdio: 'pipe', env }
  try {
    // A prebuilt binary first (seconds); compiling against Electron's headers as the fallback (a minute or two).
    execFileSync(
      process.execPath,
      [
        join(root, 'node_modules', 'prebuild-install', 'bin.js'),
        '--runtime',
        'electron',
        '--target',
        version,
        '--arch',
        process.arch,
      ],
      quiet,
    )
  } catch {
    try {
      const gypArgs = [
        'rebuild',
        '--release',
        '--runtime=electron',
        `--target=${version}`,
        `--arch=${process.arch}`,
        '--dist-url=https://electronjs.org/headers',
      ]
      const bundled = join(
        dirname(process.execPath),
        '..',
        'lib',
        'node_modules',
        'npm',
        'node_modules',
        'node-gyp',
        'bin',
        'node-gyp.js',
      )
      if (existsSync(bundled)) execFileSync(process.execPath, [bundled, ...gypArgs], quiet)
      else execFileSync('npx', ['--yes', 'node-gyp', ...gypArgs], quiet)
      assertNotNodeAbi(join(work, 'build', 'Release', 'better_sqlite3.node'))
    } catch {
      rmSync(work, { recursive: true, force: true })
      throw new Error(
        `could not get the database driver (better-sqlite3) built for Electron ${version}: no prebuilt binary could be downloaded and compiling it failed (are you offline, or missing python3/make/a C++ compiler?)`,
      )
    }
  }
  mkdirSync(join(target, '..'), { recursive: true })
  copyFileSync(join(work, 'build', 'Release', 'better_sqlite3.node'), target)
  rmSync(work, { recursive: true, force: true })
  return target
}
