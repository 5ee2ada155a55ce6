import { mkdir, readFile, realpath, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { AppError, isAppError } from '../../shared/errors'
import type { MutationResult } from '../../shared/queue'
import {
  SnapshotEngine,
  checkGitVersion,
  ShadowGit,
  withProjectLock,
  BRANCH_REF,
  readRef,
  storeLooksComplete,
  storePaths,
} from '../snapshots'
import { writeFileAtomic, ifUnreadable, type Logger } from '../workspace'
import { applyCommand, type CommandContext, type CommandOutcome, type QueueCommand } from './commands'
import { appendHistory, commitMessage, QUEUE_REF } from './history'
import { parsePlan, serializePlan, type QueueState } from './planFile'
import { queueView } from './view'

/** `.ralph/plan.jsonl` (seed 001's `ralph/plan.jsonl`, under DESIGN.md §6's state folder). */
export const PLAN_FILE = 'plan.jsonl'
// Under `.ralph/*.lock`, which snapshots never hold.
const LOCK_FILE = 'queue.lock'

/** The queue lock (in-process key and lock file) that every writer of plan.jsonl and its history takes. */
export async function queueLockOf(projectDir: string): Promise<{ key: string; lockFile: string }> {
  return { key: `queue:${await realpath(projectDir)}`, lockFile: join(projectDir, '.ralph', LOCK_FILE) }
}

export const planFilePath = (projectDir: string): string => join(projectDir, '.ralph', PLAN_FILE)

export async function projectDirOf(input: string): Promise<string> {
  const dir = resolve(input)
  const st = await stat(dir).catch(ifUnreadable(null))
  if (!st?.isDirectory()) throw new AppError('not-found', `The project folder ${dir} does not exist.`)
  return dir
}

export async function readPlanText(projectDir: string): Promise<string | null> {
  try {
    return await readFile(planFilePath(projectDir), 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw new AppError('io', `Cannot read .ralph/${PLAN_FILE}: ${(err as Error).message}`)
  }
}

export async function loadQueue(projectDir: string): Promise<QueueState> {
  return parsePlan(await readPlanText(projectDir))
}

/** The shadow store's git, for the history ref; reads never create the store. */
export function historyGit(projectDir: string): ShadowGit {
  return new ShadowGit(storePaths(projectDir).gitDir, projectDir)
}

export const historyExists = (projectDir: string): boolean =>
  storeLooksComplete(storePaths(projectDir).gitDir)

/**
 * Creates the snapshot store on first use through its own engine (its lock, its layout). The engine's open()
 * only creates a store inside an existing `.ralph/`; a queue change is a first use that makes one.
 */
async function ensureStore(projectDir: string, logger: Logger): Promise<ShadowGit> {
  await checkGitVersion()
  if (!historyExists(projectDir)) {
    await mkdir(join(projectDir, '.ralph'), { recursive: true })
    await new SnapshotEngine({ projectDir, logger }).open()
  }
  return historyGit(projectDir)
}

/**
 * What `task done` records as done_at when the caller names nothing: the latest snapshot (with `ralph build`,
 * the task's post-snapshot), else the queue's own last commit; both are commit hashes that serve as timestamps.
 */
export async function defaultDoneAt(projectDir: string): Promise<string> {
  const gitDir = storePaths(projectDir).gitDir
  return (await readRef(gitDir, BRANCH_REF)) ?? (await readRef(gitDir, QUEUE_REF)) ?? new Date().toISOString()
}

/** How a queue change runs: the failures it survives go to `logger` (the core's log; tests pass `memoryLogger()`). */
export interface MutateOptions extends CommandContext {
  lockTimeoutMs?: number
  logger: Logger
}

/** A change to the file, decided under the lock from the state it holds: its outcome and its history op. */
export type PlanChange = (
  state: QueueState,
  projectDir: string,
) => Promise<CommandOutcome & { op: string }> | (CommandOutcome & { op: string })

/** Every command of the queue, as a `changePlan` change. */
export async function mutateQueue(
  projectDir: string,
  command: QueueCommand | ((projectDir: string) => Promise<QueueCommand>),
  opts: MutateOptions,
): Promise<MutationResult> {
  return changePlan(
    projectDir,
    async (state, dir) => {
      const cmd = typeof command === 'function' ? await command(dir) : command
      return { op: cmd.op, ...applyCommand(state, cmd, opts) }
    },
    opts,
  )
}

/**
 * The effect layer of every mutation: under the queue lock (in-process mutex + lock file), read the file, decide
 * the change, write the file atomically and record one history commit. A change that leaves the file's bytes as
 * they were writes nothing and records nothing.
 */
export async function changePlan(
  projectDirIn: string,
  change: PlanChange,
  opts: { lockTimeoutMs?: number; logger: Logger },
): Promise<MutationResult> {
  const projectDir = await projectDirOf(projectDirIn)
  const git = await ensureStore(projectDir, opts.logger)
  const { key, lockFile } = await queueLockOf(projectDir)
  try {
    return await withProjectLock(
      key,
      lockFile,
      'queue change',
      { timeoutMs: opts.lockTimeoutMs ?? 30_000 },
      async () => {
        const before = await readPlanText(projectDir)
        const outcome = await change(parsePlan(before), projectDir)
        const text = serializePlan(outcome.state)
        const message = commitMessage(outcome.message, {
          op: outcome.op,
          ids: outcome.ids,
          spec: outcome.spec,
        })
        const summary = message.split('\n', 1)[0]!
        let commit: string | null = null
        if (text !== before) {
          await writeFileAtomic(planFilePath(projectDir), text).catch((err: unknown) => {
            throw new AppError('io', `Cannot write .ralph/${PLAN_FILE}: ${(err as Error).message}`)
          })
          commit = await appendHistory(git, text, message)
        }
        return {
          message: commit === null ? `${summary} (no change)` : summary,
          commit,
          ids: outcome.ids,
          warnings: outcome.warnings,
          // From the text as written, so line numbers match the file.
          state: queueView(parsePlan(text)),
        }
      },
    )
  } catch (err) {
    if (
      isAppError(err, 'busy') &&
      (err.details as { lockFile?: string } | undefined)?.lockFile === lockFile
    ) {
      throw new AppError(
        'busy',
        'Another change to the work queue is still running in another process. Try again when it finishes.',
        err.details,
      )
    }
    throw err
  }
}
