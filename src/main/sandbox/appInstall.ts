// The app's own install, which processes in the sandbox run from: the MCP servers Ralph ships in its node_modules,
// the agent engines' CLIs, Node or Electron itself. It can live where the sandbox empties everything (a fresh /tmp,
// every home folder emptied): an AppImage runs the app from /tmp/.mount_*, a checkout may sit under /tmp or a home
// folder. So it is bound back read-only wherever it is.
import { realpath } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { appRoot, type Logger, unlessMissing } from '../workspace'
import { isWithin } from './policy'

/**
 * What of the app's folder runs: its packages, its build, its resources and its launcher. Not the whole folder: a
 * checkout may hold a `.env` or other files a command has no business reading.
 */
export const APP_RUNTIME_PARTS: readonly string[] = [
  'package.json',
  'node_modules',
  'out',
  'resources',
  'bin',
]

/**
 * What to bind back of `paths`, given the folders the sandbox empties (/tmp, the home folders): a path that holds
 * one of them is dropped (binding `/tmp` or `/` back would undo the emptying), then duplicates and paths inside
 * another one.
 */
export function installBinds(paths: readonly string[], emptied: readonly string[]): string[] {
  const allowed = [...new Set(paths)].filter((p) => !emptied.some((e) => isWithin(e, p)))
  return allowed.filter((p) => !allowed.some((other) => other !== p && isWithin(p, other)))
}

/**
 * Real paths of the app's runtime parts that exist, and of the program running Ralph (process.execPath: node, or
 * Electron) with its folder, which in an AppImage is the whole app. The program itself is listed for when its
 * folder cannot be bound (a node binary straight in /tmp or a home folder): installBinds keeps the widest that is safe.
 */
export async function appInstallPaths(
  log: Logger,
  root: string = appRoot(),
  execPath: string = process.execPath,
): Promise<string[]> {
  const resolve = (p: string) =>
    realpath(p).catch(unlessMissing(log, `sandbox: could not resolve ${p}`, null))
  // A part the install does not have (no out/ before the first build, no bin/ in a package) is the usual case.
  const parts = await Promise.all(APP_RUNTIME_PARTS.map((part) => resolve(join(root, part))))
  const program = await resolve(execPath)
  const found = program === null ? parts : [...parts, dirname(program), program]
  return found.filter((p): p is string => p !== null)
}
