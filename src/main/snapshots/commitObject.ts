import type { GitIdentity } from './git'
import { ObjectStore } from './objectStore'

/**
 * Snapshot commits written and read without starting git. A commit is a short text object; `git commit-tree`
 * writes exactly `tree`, `author`, `committer`, a blank line and the message as given, so the same bytes (and
 * name) come from here. Identities git would clean up first (leading or trailing punctuation, angle brackets)
 * are left to git: null means "ask git".
 */
export function writeCommit(
  gitDir: string,
  tree: string,
  identity: GitIdentity,
  seconds: number,
  message: string,
  parents: readonly string[] = [],
): string | null {
  if (!plainIdentity(identity.name) || !plainIdentity(identity.email)) return null
  const who = `${identity.name} <${identity.email}> ${seconds} +0000`
  const parentLines = parents.map((p) => `parent ${p}\n`).join('')
  const body = Buffer.from(
    `tree ${tree}\n${parentLines}author ${who}\ncommitter ${who}\n\n${message}`,
    'utf8',
  )
  return new ObjectStore(gitDir).write('commit', body)
}

/** A commit's text (headers and message) when it is stored loose; null when packed or missing (ask git). */
export function readLooseCommit(gitDir: string, commit: string): string | null {
  const obj = new ObjectStore(gitDir).readLoose(commit)
  return obj?.type === 'commit' ? obj.body.toString('utf8') : null
}

/** The tree a commit's text names. */
export function treeOfCommit(text: string): string | null {
  return /^tree ([0-9a-f]{40})\n/.exec(text)?.[1] ?? null
}

// Git strips these from both ends of a name or email (ident.c, crud()); such identities go through git.
// eslint-disable-next-line no-control-regex
const CRUD = /^[\x00-\x20.,:;<>"\\']|[\x00-\x20.,:;<>"\\']$|[<>\n\0]/

function plainIdentity(value: string): boolean {
  return value.length > 0 && !CRUD.test(value)
}
