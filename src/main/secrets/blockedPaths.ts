/**
 * Paths a task must never touch (verification's blocked-paths check, DESIGN.md §16; Commit to my git runs the same
 * rule). One list, as data: each entry names the rule the verdict quotes. Every test is case-insensitive, because
 * macOS and Windows treat `deploy/.ENV` as `.env` and a check that can be dodged by a capital letter is no check.
 *
 * Path-only on purpose: `.npmrc` and `.pypirc` are not here. A project's `.npmrc` (registry, engine-strict) is
 * ordinary configuration a task may change; only a token in it is a credential, and the secrets check looks for
 * exactly that in those two files (src/main/verify/secrets.ts).
 */

/**
 * What a blocked path holds, for the sandbox (src/main/sandbox/projectSecrets.ts): `env` files are hidden unless the
 * project allows them, `secret` files (keys, credentials) always; `git` is read-only there, not hidden.
 * The file tools, verification and commits refuse every kind alike.
 */
export type BlockedKind = 'git' | 'env' | 'secret'

export type BlockedPattern = { kind?: BlockedKind } &
  /** These folders, one inside the next, anywhere in the path (the last may be the file: a worktree's `.git`). */
  (| { rule: string; folders: readonly string[] }
    /** The path ends with these segments. */
    | { rule: string; tail: readonly string[] }
    /** The file name matches `name` and does not match `unless`. */
    | { rule: string; name: RegExp; unless?: RegExp }
  )

/** Committed on purpose: a template of the variables, without values (`.env.example`, `.env.local.sample`). */
const TEMPLATE = /\.(?:example|sample|template)$/i

/**
 * `credentials*` as a name, but not a source or documentation file called credentials: `src/auth/credentials.ts`
 * is code that handles credentials (reading them from the environment), not a credential store, and blocking it
 * would fail honest tasks; what it holds is the secrets check's business. Anything else (`credentials`,
 * `credentials.json`, `.aws`-style `credentials.ini`, `credentials.txt`) is blocked.
 */
const SOURCE_OR_DOC =
  /\.(?:[cm]?[jt]sx?|py|go|rb|rs|java|kt|kts|scala|swift|cs|fs|php|c|cc|cpp|h|hpp|m|dart|ex|exs|erl|clj|lua|pl|r|sh|vue|svelte|md|mdx|rst|adoc)$/i

export const BLOCKED_PATHS: readonly BlockedPattern[] = [
  { rule: '.git/', folders: ['.git'], kind: 'git' },
  { rule: '.ssh/', folders: ['.ssh'] },
  { rule: '.aws/', folders: ['.aws'] },
  { rule: '.gnupg/', folders: ['.gnupg'] },
  { rule: '.config/gh/', folders: ['.config', 'gh'] },
  { rule: '.docker/config.json', tail: ['.docker', 'config.json'] },
  { rule: '.env', name: /^\.env$/i, kind: 'env' },
  { rule: '.env.*', name: /^\.env\../i, unless: TEMPLATE, kind: 'env' },
  { rule: '*.env', name: /.\.env$/i, kind: 'env' },
  // direnv's file: it holds exports like a `.env` and runs as shell code when the user enters the folder.
  { rule: '.envrc', name: /^\.envrc$/i, kind: 'env' },
  { rule: '*.pem', name: /\.pem$/i },
  { rule: '*.key', name: /\.key$/i },
  { rule: '*.p12', name: /\.p12$/i },
  { rule: '*.pfx', name: /\.pfx$/i },
  // Private SSH keys by their default names; the public halves (`id_rsa.pub`) are meant to be shared.
  { rule: 'id_rsa*', name: /^id_rsa/i, unless: /\.pub$/i },
  { rule: 'id_ed25519*', name: /^id_ed25519/i, unless: /\.pub$/i },
  { rule: 'id_ecdsa*', name: /^id_ecdsa/i, unless: /\.pub$/i },
  { rule: 'id_dsa*', name: /^id_dsa/i, unless: /\.pub$/i },
  { rule: 'credentials*', name: /^credentials/i, unless: SOURCE_OR_DOC },
  { rule: 'secrets.y*ml', name: /^secrets(?:\.[^/]*)?\.ya?ml$/i, unless: /\.(?:example|sample|template)\./i },
  { rule: '.netrc', name: /^[._]netrc$/i },
]

/** Where `want` (lower case) sits as consecutive segments of `segments`: every start index. */
function runsAt(segments: readonly string[], want: readonly string[]): number[] {
  const at: number[] = []
  for (let i = 0; i + want.length <= segments.length; i++) {
    if (want.every((w, k) => segments[i + k]!.toLowerCase() === w)) at.push(i)
  }
  return at
}

function matches(p: BlockedPattern, segments: readonly string[]): boolean {
  if ('folders' in p) return runsAt(segments, p.folders).length > 0
  if ('tail' in p) return runsAt(segments, p.tail).includes(segments.length - p.tail.length)
  const name = segments.at(-1) ?? ''
  return p.name.test(name) && !(p.unless?.test(name) ?? false)
}

/** The pattern that blocks `path` (relative, `/`-separated), or null. */
function blockingPattern(path: string): BlockedPattern | null {
  const segments = path.split(/[/\\]/).filter((s) => s !== '' && s !== '.')
  for (const p of BLOCKED_PATHS) if (matches(p, segments)) return p
  return null
}

/** The rule that blocks `path` (relative, `/`-separated), or null. Sync and cheap: Commit to my git calls it too. */
export function blockedPathRule(path: string): string | null {
  return blockingPattern(path)?.rule ?? null
}

/** What the blocked `path` holds (see BlockedKind), or null when it is not blocked. */
export function blockedPathKind(path: string): BlockedKind | null {
  const p = blockingPattern(path)
  return p === null ? null : (p.kind ?? 'secret')
}

/** The rules, for the verdict's text: "No change to .git/, .ssh/, …". */
export const blockedPathRules = (): string => BLOCKED_PATHS.map((p) => p.rule).join(', ')
