import { z } from 'zod'
import { projectId, projectOnly } from './common'
import { defineCalls } from './define'

const task = z.number().int().positive().max(Number.MAX_SAFE_INTEGER)
/** Project-relative paths the user lets into the commit although a check flagged them (one checkbox per file). */
const allowed = z.array(z.string().max(4096)).max(10_000).optional()

/** What is going on in the user's repository that a commit must not cut into. */
export const userGitOperationSchema = z.enum(['merge', 'rebase', 'cherry-pick', 'revert'])
export type UserGitOperation = z.infer<typeof userGitOperationSchema>

/**
 * Whether git may act on the repository's own config and hooks (DESIGN.md §14). Untrusted: a task created the
 * repository, or changed its config or hooks, and the user has not confirmed it since. Reads never run any of it.
 */
export const repoTrustSchema = z.object({
  trusted: z.boolean(),
  reason: z.enum(['created', 'changed']).nullable(),
  /** The task that created or changed it; null while trusted. */
  task: z.number().int().nullable(),
  /** "This folder’s git repository was created by task 3."; null while trusted. */
  message: z.string().nullable(),
  /** What git would run from the repository's own config and hooks (config key or hook, and its command). */
  wouldRun: z.array(z.object({ what: z.string(), command: z.string() })),
  /** Of the config and hooks as shown: a confirmation covers exactly what the user saw. */
  fingerprint: z.string(),
})
export type RepoTrust = z.infer<typeof repoTrustSchema>

/** The user's own repository as the project header shows it (read with simple-git, never written). */
export const userGitStateSchema = z.discriminatedUnion('repo', [
  z.object({ repo: z.literal(false) }),
  z.object({
    repo: z.literal(true),
    /** The branch checked out; null when HEAD is detached. */
    branch: z.string().nullable(),
    detached: z.boolean(),
    /** The branch has no commit yet (a fresh `git init`). */
    unborn: z.boolean(),
    /** HEAD's short hash; null on an unborn branch. */
    head: z.string().nullable(),
    /** Every path `git status` lists: staged, unstaged and untracked. */
    changedFiles: z.number().int(),
    stagedFiles: z.number().int(),
    /**
     * Ralph's own files (the project's `.ralph/`) that `git status` lists as untracked: not in `changedFiles`,
     * but a repository listing them is not clean. 0 once `userGit.excludeRalph` hid them (or the user's ignores do).
     */
    ralphUntracked: z.number().int(),
    operation: userGitOperationSchema.nullable(),
    trust: repoTrustSchema,
  }),
])
export type UserGitState = z.infer<typeof userGitStateSchema>

/** Why "Commit to my git" will not commit; the message says what to do. */
export const commitRefusalSchema = z.object({
  code: z.enum([
    'not-a-repo',
    'operation',
    'detached',
    'staged',
    'changed-since',
    'nothing',
    'task-running',
    'no-snapshot',
    'committed',
    'untrusted',
    'flagged',
  ]),
  message: z.string(),
  /** The files the refusal is about (project-relative), when it is about files. */
  paths: z.array(z.string()),
})
export type CommitRefusal = z.infer<typeof commitRefusalSchema>

export const commitFileSchema = z.object({
  /** Project-relative, as the timeline shows it. */
  path: z.string(),
  status: z.enum(['added', 'modified', 'deleted']),
})

/** A task's changed file that the commit leaves out, and why. */
export const leftOutFileSchema = z.object({
  path: z.string(),
  reason: z.enum(['ralph-state', 'ignored']),
})

/**
 * A file the commit refuses unless the user overrides it for that file: a path verification blocks (.env, *.pem …)
 * or a secret in its added lines. `detail` says why; a secret is shown masked, never in full.
 */
export const flaggedFileSchema = z.object({
  path: z.string(),
  reason: z.enum(['blocked-path', 'secret']),
  detail: z.string(),
  /** True when the user's override (`allow`) covers it: it goes into the commit. */
  allowed: z.boolean(),
})
export type FlaggedFile = z.infer<typeof flaggedFileSchema>

export const commitPlanSchema = z.object({
  task: z.number().int(),
  /** The task's changed files that go into the commit. */
  files: z.array(commitFileSchema),
  leftOut: z.array(leftOutFileSchema),
  /** Null when Commit would go ahead now. */
  refusal: commitRefusalSchema.nullable(),
  /** Where the commit would go. */
  branch: z.string().nullable(),
  /** Files refused unless overridden one by one (blocked paths, secrets). */
  flagged: z.array(flaggedFileSchema),
  /** The repository's trust; null outside a repository. */
  trust: repoTrustSchema.nullable(),
})
export type CommitPlan = z.infer<typeof commitPlanSchema>

/**
 * A commit "Commit to my git" made for a task, and where it stands in the user's repository now: still reachable
 * from HEAD (`on-branch`), present but no longer on the checked-out branch (reset away, or another branch checked
 * out: `off-branch`), or gone from the repository (`missing`). Only `on-branch` counts as committed.
 */
export const userCommitSchema = z.object({
  task: z.number().int(),
  runId: z.number().int().nullable(),
  /** The full hash. */
  hash: z.string(),
  shortHash: z.string(),
  /** The branch it was made on. */
  branch: z.string(),
  /** The message's first line. */
  subject: z.string(),
  committedAt: z.number(),
  state: z.enum(['on-branch', 'off-branch', 'missing']),
})
export type UserCommit = z.infer<typeof userCommitSchema>

export const userGitCalls = defineCalls({
  /** Branch, changed-file count and any merge/rebase/cherry-pick in progress; `{ repo: false }` outside git. */
  'userGit.status': {
    input: projectOnly,
    output: userGitStateSchema,
  },
  /** Each committed task's latest commit (from the app's database), checked against the repository as it is now. */
  'userGit.commits': {
    input: projectOnly,
    output: z.object({ commits: z.array(userCommitSchema) }),
  },
  /** What "Commit to my git" would commit for a completed task, or why it would refuse. Writes nothing. */
  'userGit.previewCommit': {
    input: z.object({ projectId, task, allow: allowed }).strict(),
    output: commitPlanSchema,
  },
  /**
   * One commit on the current branch holding exactly the task's changed files (task-N-pre → task-N-post), as
   * they are on disk; the user's other staged, unstaged and untracked changes and stash stay as they were.
   * Never a push. Refused (with the reason) in the cases `userGit.previewCommit` reports.
   */
  'userGit.commitTask': {
    mutates: true,
    input: z
      .object({
        projectId,
        task,
        message: z
          .string()
          .max(100_000)
          .refine((m) => m.trim().length > 0, 'Write a commit message first.'),
        allow: allowed,
        /**
         * An untrusted repository: the fingerprint of the config and hooks the user was shown and confirmed. The
         * commit then runs none of them (no hooks, filters or other programs); refused when it changed since.
         */
        untrustedConfirmed: z.string().max(200).optional(),
      })
      .strict(),
    output: z.object({
      /** The new commit's short hash. */
      hash: z.string(),
      branch: z.string(),
      /** The files the commit changed (project-relative). */
      files: z.array(z.string()),
      /** Set when the repository's hooks were skipped, saying why (Ralph runs them only in its sandbox). */
      notice: z.string().optional(),
    }),
  },
  /**
   * Hides the project's `.ralph/` from `git status` in the user's repository, only when the user asks: one line in
   * its `info/exclude` (read by this copy of the repository alone: nothing committed or shared), never
   * `.gitignore`. Idempotent; refused outside a repository.
   */
  'userGit.excludeRalph': {
    mutates: true,
    input: projectOnly,
    output: z.object({
      /** The exclude file, absolute. */
      file: z.string(),
      /** The line that holds `.ralph/` out, e.g. `/.ralph/`. */
      line: z.string(),
      /** False when the line was there already. */
      added: z.boolean(),
    }),
  },
  /**
   * The user trusts the repository as shown (`fingerprint` from the status or preview): from now on a commit runs
   * its hooks as git does. Recorded; refused when the config or hooks changed since they were shown.
   */
  'userGit.trust': {
    mutates: true,
    input: z.object({ projectId, fingerprint: z.string().max(200) }).strict(),
    output: repoTrustSchema,
  },
})
