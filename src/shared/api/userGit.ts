import { z } from 'zod'
import { defineCalls } from './define'

const projectId = z.number().int().positive()
const task = z.number().int().positive().max(Number.MAX_SAFE_INTEGER)

/** What is going on in the user's repository that a commit must not cut into. */
export const userGitOperationSchema = z.enum(['merge', 'rebase', 'cherry-pick', 'revert'])
export type UserGitOperation = z.infer<typeof userGitOperationSchema>

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
    operation: userGitOperationSchema.nullable(),
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

export const commitPlanSchema = z.object({
  task: z.number().int(),
  /** The task's changed files that go into the commit. */
  files: z.array(commitFileSchema),
  leftOut: z.array(leftOutFileSchema),
  /** Null when Commit would go ahead now. */
  refusal: commitRefusalSchema.nullable(),
  /** Where the commit would go. */
  branch: z.string().nullable(),
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
    input: z.object({ projectId }).strict(),
    output: userGitStateSchema,
  },
  /** Each committed task's latest commit (from the app's database), checked against the repository as it is now. */
  'userGit.commits': {
    input: z.object({ projectId }).strict(),
    output: z.object({ commits: z.array(userCommitSchema) }),
  },
  /** What "Commit to my git" would commit for a completed task, or why it would refuse. Writes nothing. */
  'userGit.previewCommit': {
    input: z.object({ projectId, task }).strict(),
    output: commitPlanSchema,
  },
  /**
   * One commit on the current branch holding exactly the task's changed files (task-N-pre → task-N-post), as
   * they are on disk; the user's other staged, unstaged and untracked changes and stash stay as they were.
   * Never a push. Refused (with the reason) in the cases `userGit.previewCommit` reports.
   */
  'userGit.commitTask': {
    input: z
      .object({
        projectId,
        task,
        message: z
          .string()
          .max(100_000)
          .refine((m) => m.trim().length > 0, 'Write a commit message first.'),
      })
      .strict(),
    output: z.object({
      /** The new commit's short hash. */
      hash: z.string(),
      branch: z.string(),
      /** The files the commit changed (project-relative). */
      files: z.array(z.string()),
    }),
  },
})
