// Where a file sits in the layout of DESIGN.md §2, computed from its path alone (no file system access), so the
// rules and scripts/reroute-imports.ts agree on what a "module" is.
import { posix } from 'node:path'

/** The hosts of src/main: they implement or serve the contract; the domain modules never import them. */
export const HOSTS = new Set(['api', 'web', 'cli', 'electron'])

const toPosix = (file) => file.replace(/\\/g, '/')

/**
 * The module a path belongs to: `{ kind: 'domain' | 'host', name, root, rest }` for src/main/<name>/…,
 * `{ kind: 'feature', … }` for src/renderer/src/features/<name>/…, else undefined. `rest` is the path inside the
 * module without extension ('' for the module folder itself).
 */
export function moduleOf(file) {
  const path = toPosix(file)
  for (const [marker, kindOf] of [
    ['/src/main/', (name) => (HOSTS.has(name) ? 'host' : 'domain')],
    ['/src/renderer/src/features/', () => 'feature'],
  ]) {
    const at = path.lastIndexOf(marker)
    if (at < 0) continue
    const after = path.slice(at + marker.length)
    const slash = after.indexOf('/')
    const name = slash < 0 ? after : after.slice(0, slash)
    if (!name || /\.[cm]?[jt]sx?$/.test(name)) return undefined // a file directly in src/main, not a module
    const rest = slash < 0 ? '' : after.slice(slash + 1).replace(/\.(d\.)?[cm]?[jt]sx?$/, '')
    return { kind: kindOf(name), name, root: path.slice(0, at + marker.length) + name, rest }
  }
  return undefined
}

/** The absolute path a relative import names, or undefined for a package import. */
export function resolveImport(fromFile, specifier) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../') && specifier !== '.' && specifier !== '..')
    return undefined
  return posix.resolve(posix.dirname(toPosix(fromFile)), specifier)
}

/** True when the path inside a module names its index (the folder itself, or index.ts). */
export const isIndex = (rest) => rest === '' || rest === 'index'

/** Tests and test helpers: `*.test.ts(x)`, `testkit.ts`, and src/renderer/src/test/. */
export const isTestFile = (file) =>
  /\.test\.[cm]?[jt]sx?$/.test(file) ||
  /(^|\/)testkit\.[jt]sx?$/.test(toPosix(file)) ||
  /\/src\/test\//.test(toPosix(file))

/**
 * What an import of `specifier` from `fromFile` crosses: `{ from, to }` modules when it leaves its own module for
 * another one, else undefined (a package, a path outside the modules, or the importer's own module).
 */
export function crossing(fromFile, specifier) {
  const from = moduleOf(fromFile)
  const target = resolveImport(fromFile, specifier)
  if (!from || !target) return undefined
  const to = moduleOf(target)
  if (!to || to.root === from.root) return undefined
  return { from, to }
}

/** The specifier that names the module's index instead: `../snapshots/engine` → `../snapshots`. */
export function indexSpecifier(fromFile, to) {
  let rel = posix.relative(posix.dirname(toPosix(fromFile)), to.root)
  if (!rel.startsWith('.')) rel = `./${rel}`
  return rel
}
