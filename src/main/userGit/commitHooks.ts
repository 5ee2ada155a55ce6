// A trusted repository's commit hooks, run inside the sandbox (DESIGN.md §14, issue 34 item 8).
//
// Why not let `git commit` run them: an unchanged, trusted hook can still call a file a task changed (a pre-commit
// that runs `scripts/check.sh`, `npm test`, `npx lint-staged` …), so whatever the hook starts is model-written code.
// Run by git on the host it would run as the user, with the app's environment (RALPH_API_KEY …), the network, the
// vault file and the user's home in reach. Which file a hook may end up running cannot be decided, so every hook
// runs this way, always: Ralph runs each hook git commit would run, in git's order, with `git hook run` in the
// sandbox (an allowlisted environment, the home and credential stores hidden, `.git` read-only), then makes the
// commit with hooks turned off. A commit cannot itself run in the sandbox, where `.git` is read-only.
//
// The hooks see what git would show them: pre-commit gets GIT_INDEX_FILE naming a private index that holds HEAD
// plus the task's files (what `git commit -- <paths>` commits), prepare-commit-msg and commit-msg get the message
// file and may change it. A hook that writes to `.git` (lint-staged re-staging files) fails there; its refusal is
// reported like any hook's. Where no sandbox can run them, the hooks are skipped and the commit says why.
import { access, constants, readFile } from 'node:fs/promises'
import { isAbsolute, join } from 'node:path'
import type { SimpleGit } from 'simple-git'
import { AppError } from '../../shared/errors'
import { runShellCommand, type ShellOutcome } from '../tools'
import type { Logger } from '../workspace'

/** The hooks `git commit` runs before it writes the commit, in its order. */
export const BEFORE_COMMIT_HOOKS = ['pre-commit', 'prepare-commit-msg', 'commit-msg'] as const
export const AFTER_COMMIT_HOOK = 'post-commit'
type HookName = (typeof BEFORE_COMMIT_HOOKS)[number] | typeof AFTER_COMMIT_HOOK

/** A hook may be slow (a test run); a stuck one must not hang the commit. */
const HOOK_TIMEOUT_MS = 5 * 60_000

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/** The commit hooks git would run in `top` (executable files where core.hooksPath or .git/hooks points). */
export async function presentHooks(git: SimpleGit, top: string): Promise<HookName[]> {
  const names: HookName[] = [...BEFORE_COMMIT_HOOKS, AFTER_COMMIT_HOOK]
  // `--git-path hooks/x` honours core.hooksPath; reading it runs nothing.
  const out = (await git.raw(['rev-parse', ...names.flatMap((n) => ['--git-path', `hooks/${n}`])]))
    .trim()
    .split('\n')
  const present: HookName[] = []
  for (const [i, name] of names.entries()) {
    const rel = out[i]
    if (!rel) continue
    const file = isAbsolute(rel) ? rel : join(top, rel)
    if (
      await access(file, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      present.push(name)
  }
  return present
}

export interface HookRun {
  /** The work tree's root: the sandbox's project folder and the hooks' working folder. */
  top: string
  /** A private folder: HOME inside the sandbox, where the index and the message file are (writable there). */
  home: string
  /** The index the pre-commit hook sees (in `home`). */
  indexFile: string
  /** The message file (in `home`): prepare-commit-msg and commit-msg may rewrite it. */
  messageFile: string
  logger: Logger
}

export type HookOutcome =
  | { ran: true; ok: true }
  | { ran: true; ok: false; output: string }
  /** No sandbox could run it: nothing ran. */
  | { ran: false; why: string }

/** Runs one hook with `git hook run` inside the sandbox, with the sandbox's (allowlisted) environment. */
export async function runHookSandboxed(name: HookName, run: HookRun): Promise<HookOutcome> {
  const args =
    name === 'prepare-commit-msg'
      ? [run.messageFile, 'message']
      : name === 'commit-msg'
        ? [run.messageFile]
        : []
  // HUSKY=0 (the sandbox's default for npm install) would make a husky hook skip itself silently.
  const command = [
    'unset HUSKY;',
    `GIT_INDEX_FILE=${shellQuote(run.indexFile)}`,
    'exec git hook run --ignore-missing',
    name,
    ...(args.length > 0 ? ['--', ...args.map(shellQuote)] : []),
  ].join(' ')
  const out: ShellOutcome = await runShellCommand(command, {
    cwd: run.top,
    timeoutMs: HOOK_TIMEOUT_MS,
    home: run.home,
    logger: run.logger,
  })
  if (out.spawnError !== null) return { ran: false, why: out.spawnError }
  if (out.exitCode === 0) return { ran: true, ok: true }
  const why = out.timedOut
    ? `it did not finish within ${HOOK_TIMEOUT_MS / 60_000} minutes`
    : out.limitHit
      ? `it went past the sandbox's ${out.limitHit} limit`
      : `exit ${out.exitCode ?? out.signal ?? '?'}`
  return { ran: true, ok: false, output: `${out.output.trim()}${out.output.trim() ? '\n' : ''}(${why})` }
}

/**
 * Runs the hooks before a commit, in git's order. Returns the message to commit (as the hooks left it) and, when
 * the hooks could not run in a sandbox, why they were skipped. Throws when a hook refuses.
 */
export async function runHooksBeforeCommit(
  present: readonly HookName[],
  run: HookRun,
): Promise<{ message: string; skipped: string | null }> {
  for (const name of BEFORE_COMMIT_HOOKS) {
    if (!present.includes(name)) continue
    const outcome = await runHookSandboxed(name, run)
    if (!outcome.ran) {
      return {
        message: await readFile(run.messageFile, 'utf8'),
        skipped: skippedNotice(present, outcome.why),
      }
    }
    if (!outcome.ok) {
      throw new AppError(
        'git',
        `Your ${name} hook refused the commit (Ralph runs your repository's hooks inside its sandbox, without your keys or home folder):\n${outcome.output}\nYour repository is unchanged.`,
      )
    }
  }
  return { message: await readFile(run.messageFile, 'utf8'), skipped: null }
}

export function skippedNotice(present: readonly HookName[], why: string): string {
  return (
    `Your repository's ${present.join(', ')} ${present.length === 1 ? 'hook was' : 'hooks were'} not run: ` +
    `Ralph runs hooks only inside its sandbox (they may run files a task changed), and it could not start here ` +
    `(${why.split('\n')[0]}). Run them yourself if they matter (for example: git hook run pre-commit).`
  )
}
