// Every git process Ralph starts on the user's side goes through here (DESIGN.md §5, §14). A repository's own
// config and hooks can name programs git runs by itself (core.fsmonitor on every status, a filter on every add, a
// hook on every commit): a model that ran `git init` or wrote into .git inside the sandbox could plant one, and git
// run by Ralph on the host would run it with the host's environment. So reads always run with everything that can
// start a program turned off, and a commit runs the repository's hooks only when the repository is trusted (trust.ts).
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { simpleGit, type SimpleGit } from 'simple-git'

// A commit runs the user's hooks, which may be slow; a stuck git (a lock prompt, a hung hook) must not hang us.
const TIMEOUT_MS = 120_000
/** Reading config: quick, and nothing it reads is run. */
const CONFIG_TIMEOUT_MS = 30_000

/** How much of the repository's config git may act on. */
export type GitMode =
  /** Nothing in the repository's config or hooks runs (reads, and a confirmed commit to an untrusted repository). */
  | 'neutral'
  /** A trusted repository's commit: its hooks and filters are the user's own and run as they always do. */
  | 'trusted'

/** One `key=value` of git's effective config and where it came from (`local` includes what local config includes). */
export interface ConfigEntry {
  scope: string
  key: string
  value: string
}

let emptyHooks: string | null = null
/** An empty folder for core.hooksPath: git finds no hook there. Made once per process, never written to. */
function noHooksDir(): string {
  emptyHooks ??= mkdtempSync(join(tmpdir(), 'ralph-no-hooks-'))
  return emptyHooks
}

/**
 * Settings that name a program git would start, each turned off. Command-line `-c` wins over every config file
 * (includes too) and reaches the git processes git itself starts (gc --auto) through GIT_CONFIG_PARAMETERS.
 */
function baseNeutral(): string[] {
  return [
    'core.fsmonitor=false',
    `core.hooksPath=${noHooksDir()}`,
    'core.pager=cat',
    'core.sshCommand=',
    'core.askPass=',
    'core.gitProxy=',
    'core.alternateRefsCommand=',
    'diff.external=',
    // An empty value resets the list of credential helpers.
    'credential.helper=',
    'commit.gpgSign=false',
    'tag.gpgSign=false',
    'gc.auto=0',
    'maintenance.auto=false',
    // Never into a submodule or embedded repository: its config is another repository's, read by a git we start.
    'submodule.recurse=false',
    'diff.ignoreSubmodules=all',
    'status.submoduleSummary=false',
    'fetch.recurseSubmodules=false',
  ]
}

/** Keys whose value names a program (per driver: filter.<name>.clean, diff.<name>.textconv …). */
const DRIVER_KEY = /^(filter|diff|merge)\.(.+)\.(clean|smudge|process|textconv|command|driver)$/i
/** Other keys whose value git runs, shown to the user when a repository is not trusted. */
const RUNS_KEY =
  /^(core\.(fsmonitor|pager|sshcommand|askpass|gitproxy|editor|hookspath|alternaterefscommand)|diff\.external|pager\..+|credential(\..+)?\.helper|gpg(\..+)?\.program|sequence\.editor|alias\..+|uploadpack\.packobjectshook|(difftool|mergetool)\..+\.(cmd|path)|trailer\..+\.(cmd|command)|remote\..+\.(uploadpack|receivepack)|include(if\..+)?\.path)$/i

/** The `-c` list for a neutral git: the base list, and every filter/diff/merge driver the config names turned off. */
export function neutralConfig(entries: readonly ConfigEntry[]): string[] {
  const out = baseNeutral()
  const seen = new Set<string>()
  for (const e of entries) {
    const m = DRIVER_KEY.exec(e.key)
    if (!m) continue
    const key = e.key.toLowerCase()
    if (seen.has(key)) continue
    seen.add(key)
    out.push(`${key}=`)
    // An emptied filter that is `required` would fail the read instead of passing the file through.
    if (m[1]!.toLowerCase() === 'filter') out.push(`filter.${m[2]}.required=false`)
  }
  return out
}

/** Settings in the repository's own config (and what it includes) that name a program git would start. */
export function programsInConfig(entries: readonly ConfigEntry[]): { what: string; command: string }[] {
  return entries
    .filter(
      (e) =>
        (e.scope === 'local' || e.scope === 'worktree') && (DRIVER_KEY.test(e.key) || RUNS_KEY.test(e.key)),
    )
    .filter((e) => !(e.key.toLowerCase() === 'core.fsmonitor' && /^(false|0|no|off|)$/i.test(e.value.trim())))
    .map((e) => ({ what: e.key, command: e.value }))
}

/** simple-git lets a caller set these only when told to: here every value is Ralph's own, never the repository's. */
const UNSAFE_ALLOWED = {
  allowUnsafeFsMonitor: true,
  allowUnsafeHooksPath: true,
  allowUnsafePager: true,
  allowUnsafeSshCommand: true,
  allowUnsafeAskPass: true,
  allowUnsafeGitProxy: true,
  allowUnsafeCredentialHelper: true,
  allowUnsafeDiffExternal: true,
  allowUnsafeDiffTextConv: true,
  allowUnsafeFilter: true,
  allowUnsafeMergeDriver: true,
  allowUnsafeGpgProgram: true,
} as const

function gitWith(
  dir: string,
  config: string[],
  timeoutMs = TIMEOUT_MS,
  allowEnvironment: string[] = [],
): SimpleGit {
  return simpleGit({
    allowEnvironment,
    baseDir: dir,
    maxConcurrentProcesses: 4,
    timeout: { block: timeoutMs },
    config,
    unsafe: UNSAFE_ALLOWED,
  })
}

/**
 * git's effective config as seen from `dir` (every scope, includes followed), read with the base settings off.
 * Reading config runs nothing; the `-c` values Ralph passes (scope "command") are left out.
 */
export async function readConfig(dir: string): Promise<ConfigEntry[]> {
  const out = await gitWith(dir, baseNeutral(), CONFIG_TIMEOUT_MS).raw([
    'config',
    '--list',
    '--show-scope',
    '--includes',
    '-z',
  ])
  const entries: ConfigEntry[] = []
  const parts = out.split('\0')
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const scope = parts[i]!
    const kv = parts[i + 1]!
    const nl = kv.indexOf('\n')
    const key = nl < 0 ? kv : kv.slice(0, nl)
    if (scope !== 'command') entries.push({ scope, key, value: nl < 0 ? '' : kv.slice(nl + 1) })
  }
  return entries
}

/**
 * simple-git for the user's repository at `dir`. `neutral` reads the repository's config first so every driver it
 * names is turned off too; `trusted` is git as the user runs it.
 */
export async function safeGitAt(dir: string, mode: GitMode = 'neutral'): Promise<SimpleGit> {
  if (mode === 'trusted') return gitWith(dir, [])
  return gitWith(dir, neutralConfig(await readConfig(dir)))
}

/**
 * Of the app's environment, what a git on the user's side may see: the sandbox's allowlist (locale, PATH …), the
 * home folder and git's own identity and config variables. Never the app's keys (RALPH_API_KEY, *_API_KEY), the
 * vault's secrets or any other credential, whatever git or a filter it runs might do with them.
 */
export function hostGitEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && (HOST_GIT_NAMES.has(name) || name.startsWith('LC_'))) env[name] = value
  }
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin'
  return env
}

/**
 * Locale and paths, and where git finds the user's identity and signing setup: paths and sockets, not secrets.
 * (simple-git drops git's own GIT_* variables itself, and PAGER and the like are turned off by config.)
 */
const HOST_GIT_NAMES = new Set([
  'PATH',
  'LANG',
  'LANGUAGE',
  'TZ',
  'USER',
  'LOGNAME',
  'TMPDIR',
  'HOME',
  'XDG_CONFIG_HOME',
  'GNUPGHOME',
  'GPG_TTY',
  'SSH_AUTH_SOCK',
])

/**
 * The git that writes a trusted repository's commit: the repository's config as the user has it (its filters,
 * signing), its hooks turned off (commitHooks.ts runs them in the sandbox first), and the environment of
 * hostGitEnv.
 */
export function commitGitAt(dir: string): SimpleGit {
  return gitWith(dir, [`core.hooksPath=${noHooksDir()}`]).env(hostGitEnv())
}

/** A git on `dir` with the repository's own config, for reads that start no program, with hostGitEnv. */
export function plainGitAt(dir: string): SimpleGit {
  return gitWith(dir, [], CONFIG_TIMEOUT_MS).env(hostGitEnv())
}

/** A neutral git (as safeGitAt) whose index is `indexFile` instead of the repository's. */
export async function neutralGitWithIndex(dir: string, indexFile: string): Promise<SimpleGit> {
  return gitWith(dir, neutralConfig(await readConfig(dir)), TIMEOUT_MS, ['GIT_INDEX_FILE']).env({
    ...hostGitEnv(),
    GIT_INDEX_FILE: indexFile,
  })
}

/** A neutral git before the repository is known (finding it): the base settings, no config read. */
export function discoveryGitAt(dir: string): SimpleGit {
  return gitWith(dir, baseNeutral(), CONFIG_TIMEOUT_MS)
}
