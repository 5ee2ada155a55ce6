import { constants, existsSync, realpathSync, statSync } from 'node:fs'
import { access, rm, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { AppError } from '../../shared/errors'
import { tagWords } from '../../shared/snapshotTags'
import {
  attemptAsync,
  attemptUnlessMissing,
  isMissing,
  noteFailure,
  unlessMissing,
  type Logger,
} from '../workspace'
import { storeSizes } from './storeUsage'
import { readIndex } from './indexRead'
import { countDiffEntries, countNameStatus, noChanges, parseNameStatus } from './diffParse'
import { isRalphOwnPath } from '../../shared/ralphFiles'
import { ABSENT, isBinary, sideFromBuffer, tooLargeSide, worktreeSide } from './fileSides'
import { pruneCandidates, pruneStore } from './maintenance'
import { interruptedNotice, rollbackWhat } from './rollbackPlan'
import {
  applyMove,
  assertIntact,
  finishInterrupted,
  moveReport,
  planMove,
  type FaultPoint,
  type MoveParts,
  type Staged,
} from './rollbackApply'
import {
  applyCommitAsTask,
  finishedApplyMessage,
  settleApply,
  type ApplyTaskOptions,
  type ApplyTaskResult,
} from './applyTask'
import { DEFAULT_SIZE_CAP } from './exclusions'
import { ShadowGit, type GitIdentity } from './git'
import { cachedGitVersion } from './gitVersionCache'
import { withProjectLock } from './lock'
import { busyError, runningTask } from './taskLock'
import { removeStaleTempFiles } from './tempFiles'
import { readUndoJournal, writeUndoJournal } from './undoJournal'
import {
  clearFinishedNotice,
  readFinishedNotice,
  readRollbackJournal,
  writeFinishedNotice,
  type RollbackJournal,
} from './rollbackJournal'
import type { RollbackNotice } from '../../shared/api/snapshots'
import { modesTrailer, nextManifest, parseModesTrailer, type ModeManifest } from './modes'
import { withOverlay } from './overlay'
import { waitForBaseline } from './baseline'
import { throwIfCancelled, type SaveHooks } from './stageHooks'
import { consolidatePacks } from './packMaintenance'
import { normaliseProjectPath } from './paths'
import { isIndexCorruption, rebuildIndex, repairStore } from './repair'
import { stageWorkingTree, type StageResult } from './stage'
import { tagMessagesInProcess, type TagMessage } from './tagMessages'
import {
  BRANCH_REF,
  EMPTY_TREE,
  ensureRalphDir,
  indexEntryCount,
  initStore,
  readRef,
  storeLooksComplete,
  storePaths,
  writeInfoFiles,
  type StorePaths,
} from './store'
import { readLooseCommit, treeOfCommit } from './commitObject'
import { assertTagName, baseTagName, commitMessage, parseCommitMessage, uniqueTagName } from './tags'
import {
  snapshotKinds,
  type ChangeCounts,
  type DiffEntry,
  type DiffResult,
  type FileDiff,
  type FileSide,
  type ListOptions,
  type ListResult,
  type PruneOptions,
  type PruneResult,
  type RepairReport,
  type RollbackReport,
  type SaveOptions,
  type SaveResult,
  type ShowResult,
  type SnapshotIndex,
  type SnapshotMeta,
  type StatusResult,
  type UsageResult,
} from './types'

export interface SnapshotEngineOptions {
  projectDir: string
  /** Where metadata is mirrored (the app's SQLite store); optional. */
  index?: SnapshotIndex
  /** Untracked files above this many bytes are skipped and reported (default 5 MB). */
  sizeCap?: number
  /** How long to wait for another process holding the project lock (default 60 s). */
  lockTimeoutMs?: number
  now?: () => number
  gitBinary?: string
  identity?: GitIdentity
  /**
   * The task lock this engine's owner holds (the loop's own engine). Without it, save, rollback, undo and prune
   * are refused while any task runs on the project, in this process or another.
   */
  taskLock?: { readonly token: string }
  /** Where failures the engine survives are recorded (the core's log file; tests pass `memoryLogger()`). */
  logger: Logger
  /** Crash tests only: called at points where a real crash leaves interesting state (the test kills itself). */
  faultHook?: (point: FaultPoint) => void
}

export const DEFAULT_FILE_DIFF_LIMIT = 512 * 1024

/**
 * The snapshot engine for one project: a shadow git store at `.ralph/snapshots.git` whose work tree is
 * the project root (DESIGN.md §5). Every operation runs under the project lock.
 */
export class SnapshotEngine {
  readonly paths: StorePaths
  private readonly git: ShadowGit
  private readonly sizeCap: number
  private readonly now: () => number
  private readonly log: Logger
  private opened = false
  private repairs: string[] = []

  /** An interrupted rollback found on opening the store (finished, or waiting): callers tell the user. */
  get rollbackNotice(): RollbackNotice | null {
    return this.notice
  }

  /**
   * The interrupted rollback to tell the user of: one waiting to be finished, or one finished (by this engine or
   * any other, in any process) that no host has told the user of yet (see dismissRollbackNotice).
   */
  async pendingRollbackNotice(): Promise<RollbackNotice | null> {
    if (this.notice) return this.notice
    const finished = await readFinishedNotice(this.paths.gitDir)
    if (finished) return finished
    // A journal no open has looked at: a project this user cannot write (it is never finished here).
    const journal = await readRollbackJournal(this.paths.gitDir)
    if (!journal) return null
    const writable = await this.writable()
    // An apply under way is the build's (it holds the lock until it is done, or the next open finishes it).
    if (journal.apply && writable) return null
    return interruptedNotice(
      journal,
      writable
        ? 'it has not been looked at yet.'
        : 'the project cannot be written here, so it was not finished.',
    )
  }

  /** The user has been told of the finished rollback: the notice is not shown again. */
  async dismissRollbackNotice(): Promise<void> {
    if (this.notice?.state === 'finished') this.notice = null
    await clearFinishedNotice(this.paths.gitDir)
  }

  /** What opening the store repaired so far (read-only calls open it too): callers tell the user. */
  get repairsMade(): readonly string[] {
    return this.repairs
  }
  private lockKey: string | null = null
  /** The running save's progress and Cancel (one save at a time runs, under the lock). */
  private stageHooks: SaveHooks = {}
  private modesCache: { commit: string; modes: ModeManifest } | null = null
  /** An interrupted rollback this engine found: finished by it, or waiting for Finish rollback. */
  private notice: RollbackNotice | null = null
  /** The report of the interrupted rollback this engine finished (what Finish rollback returns then). */
  private recovered: RollbackReport | null = null
  /** The journal (by start time) this engine already tried to finish: a failed attempt is not repeated per call. */
  private recoveryTried: number | null = null
  /** The journal of the interrupted rollback the current locked call finished on its way in, if any. */
  private justRecovered: RollbackJournal | null = null
  private gitChecked: Promise<void> | null = null
  /** What the rollback and apply machinery (rollbackApply.ts, applyTask.ts) needs of this engine. */
  private readonly parts: MoveParts

  constructor(private readonly opts: SnapshotEngineOptions) {
    const projectDir = resolve(opts.projectDir)
    this.paths = storePaths(projectDir)
    this.git = new ShadowGit(this.paths.gitDir, projectDir, opts.identity, opts.gitBinary)
    this.sizeCap = opts.sizeCap ?? DEFAULT_SIZE_CAP
    this.now = opts.now ?? Date.now
    this.log = opts.logger
    this.parts = {
      ...{ git: this.git, paths: this.paths, log: this.log, now: this.now, faultHook: opts.faultHook },
      taskToken: opts.taskLock?.token,
      save: (options, rollbackTarget, staged) => this.saveUnlocked(options, rollbackTarget, staged),
      stageTree: (git = this.git) => this.stageAndWriteTree(git),
      stageForSave: async () => {
        const head = await readRef(this.paths.gitDir, BRANCH_REF)
        return { head, ...(await this.stageAndWriteTree(this.git, head ?? EMPTY_TREE)) }
      },
      resolveTag: (tag) => this.resolveTag(tag),
      commitText: (commit) => this.commitText(commit),
      modesOf: (commit) => this.modesOf(commit),
    }
  }

  /** Creates `.ralph/` and the store if missing, and repairs what an earlier crash left (`ralph init`, the loop). */
  async init(): Promise<RepairReport> {
    await this.locked('open', async () => undefined)
    return { repairs: [...this.repairs] }
  }

  /**
   * Checks and repairs an existing store. Never creates `.ralph/`: a folder that was never initialised has
   * nothing to open, and a read-only one nothing to repair. (An initialised project whose store is missing or
   * half-made gets it finished.)
   */
  async open(): Promise<RepairReport> {
    if (!existsSync(this.paths.ralphDir) || !(await this.writable())) return { repairs: [] }
    await this.locked('open', async () => undefined)
    return { repairs: [...this.repairs] }
  }

  async save(options: SaveOptions): Promise<SaveResult> {
    // A background baseline of this folder reads every file once; this save then only stores what changed since.
    if (options.kind !== 'baseline') await waitForBaseline(this.paths.projectDir)
    return this.writeLocked('save', () => this.saveUnlocked(options, null))
  }

  /**
   * The baseline of a project without snapshots (see baseline.ts, which runs it in the background): null when
   * the project has snapshots by then. Cancelling it leaves nothing committed (the files read stay in the
   * snapshot index, so the next save does not read them again).
   */
  saveBaseline(hooks: Pick<SaveOptions, 'signal' | 'onProgress'> = {}): Promise<SaveResult | null> {
    return this.writeLocked('baseline', async () => {
      if ((await this.listAll()).length > 0) return null
      return this.saveUnlocked({ kind: 'baseline', message: '', ...hooks }, null)
    })
  }

  async list(options: ListOptions = {}): Promise<ListResult> {
    const all = await this.readOnly(
      () => this.listAll(),
      () => [],
    )
    const filtered = all.filter(
      (s) =>
        (options.kind === undefined || s.kind === options.kind) &&
        (options.task === undefined || s.task === options.task),
    )
    const offset = Math.max(0, options.offset ?? 0)
    const limit = Math.max(0, options.limit ?? 100)
    return { items: filtered.slice(offset, offset + limit), total: filtered.length }
  }

  /**
   * One snapshot by its tag, read straight from its ref and commit (no listing of the timeline: O(1) in its length);
   * null when the tag is not in the store or its commit is not a snapshot Ralph wrote.
   */
  async get(tag: string): Promise<SnapshotMeta | null> {
    assertTagName(tag)
    return this.readOnly(
      async () => {
        const commit = await readRef(this.paths.gitDir, `refs/tags/${tag}`)
        if (commit === null) return null
        const text = await this.commitText(commit)
        // The message follows the commit's headers (tree, parent, author, committer) and a blank line.
        const body = text.indexOf('\n\n')
        return body === -1 ? null : parseCommitMessage(tag, commit, text.slice(body + 2))
      },
      () => null,
    )
  }

  /** File-level changes from `target` to `against` (a snapshot) or to the working tree. */
  async diff(target: string, against?: string): Promise<DiffResult> {
    const from = await this.readOnly(
      () => this.resolveTag(target),
      () => noSuchTag(target),
    )
    const compute = async (toTree: string, git = this.git): Promise<DiffResult> => {
      const entries = await this.diffTrees(from, toTree, true, git)
      return { from: target, to: against ?? null, entries, counts: countDiffEntries(entries) }
    }
    if (against !== undefined) return compute(await this.resolveTag(against))
    return this.staged('diff', async (git) => compute((await this.stageAndWriteTree(git)).tree, git))
  }

  /** One file's content on both sides, for a diff viewer; large and binary files become placeholders. */
  async fileDiff(
    target: string,
    path: string,
    against?: string,
    maxBytes = DEFAULT_FILE_DIFF_LIMIT,
  ): Promise<FileDiff> {
    const rel = normaliseProjectPath(path)
    const from = await this.readOnly(
      () => this.resolveTag(target),
      () => noSuchTag(target),
    )
    const oldSide = await this.blobSide(from, rel, maxBytes)
    const newSide =
      against !== undefined
        ? await this.blobSide(await this.resolveTag(against), rel, maxBytes)
        : await worktreeSide(this.paths.projectDir, rel, maxBytes, this.log)
    return { path: rel, from: target, to: against ?? null, old: oldSide, new: newSide }
  }

  async show(tag: string, path: string): Promise<ShowResult> {
    const rel = normaliseProjectPath(path)
    const commit = await this.readOnly(
      () => this.resolveTag(tag),
      () => noSuchTag(tag),
    )
    const obj = await this.lookupBlob(commit, rel)
    if (!obj) throw new AppError('not-found', `"${rel}" is not in snapshot ${tag}.`)
    const content = (await this.git.run(['cat-file', 'blob', obj.sha])).stdout
    return { tag, path: rel, size: obj.size, binary: isBinary(content), content }
  }

  /** Where the project stands. A project without a store has no snapshots yet, and gets none from asking. */
  async status(): Promise<StatusResult> {
    if (!storeLooksComplete(this.paths.gitDir)) {
      const none = noChanges()
      return {
        ...{ position: null, latest: null, dirty: false, changes: none, trackedFiles: 0, snapshotCount: 0 },
        ...{ lastSnapshotAt: null, repairs: [], rollbackNotice: null },
      }
    }
    return this.staged('status', async (git) => {
      const head = await readRef(this.paths.gitDir, BRANCH_REF)
      // Reading the snapshots needs nothing from the staging: both at once.
      const [{ changes }, all] = await Promise.all([
        this.stageAndWriteTree(git, head ?? EMPTY_TREE),
        this.listAll(),
      ])
      const position = head ? (all.find((s) => s.commit === head) ?? null) : null
      const latest = all[0] ?? null
      return {
        position,
        latest,
        dirty: changes.added + changes.modified + changes.deleted > 0,
        changes,
        trackedFiles: await indexEntryCount(git.indexDir),
        snapshotCount: all.length,
        lastSnapshotAt: latest?.createdAt ?? null,
        repairs: [...this.repairs],
        rollbackNotice: await this.pendingRollbackNotice(),
      }
    })
  }

  async previewRollback(tag: string): Promise<RollbackReport> {
    if (!storeLooksComplete(this.paths.gitDir)) noSuchTag(tag)
    return this.staged('preview', async (git) => {
      const start = performance.now()
      const target = await this.resolveTag(tag)
      const { tree, stage } = await this.stageAndWriteTree(git)
      const plan = await planMove(this.parts, tree, target, stage, tag, git)
      await assertIntact(git, tag, plan)
      return moveReport(plan, tag, target, null, true, start)
    })
  }

  rollback(tag: string): Promise<RollbackReport> {
    return this.writeLocked('rollback', () => this.rollbackUnlocked(tag, false))
  }

  /**
   * Applies a merged commit of this store (a lane's task) to the folder as task N, between task-N-pre and
   * task-N-post: see applyTask.ts. The build calls it with the task lock held (this engine's `taskLock`).
   */
  applyCommitAsTask(options: ApplyTaskOptions): Promise<ApplyTaskResult> {
    return this.writeLocked('apply-task', () => applyCommitAsTask(this.parts, options))
  }

  /**
   * Finishes an interrupted rollback that opening the store could not finish safely (files changed that the
   * rollback does not explain): a new safety snapshot keeps them, then the rollback to the journal's target runs.
   * When opening the store just finished it, returns that report.
   */
  finishRollback(): Promise<RollbackReport> {
    return this.writeLocked('finish-rollback', async () => {
      const journal = await readRollbackJournal(this.paths.gitDir)
      if (!journal) {
        if (this.recovered) return this.recovered
        throw new AppError('not-found', 'No interrupted rollback is waiting to be finished.')
      }
      const report = journal.apply
        ? await this.finishApply(journal)
        : await this.rollbackUnlocked(journal.target, journal.undo)
      this.notice = null
      return report
    })
  }

  /**
   * Rolls back to the safety snapshot taken by the most recent rollback. An undo that was interrupted is finished
   * in the same direction (see undoJournal.ts).
   */
  undo(): Promise<RollbackReport & { undid: string }> {
    return this.writeLocked('undo', async () => {
      const all = await this.listAll()
      // An undo killed midway was just finished on opening the store: this call was its retry, so it is done
      // (another undo now would go back the other way).
      const finished = this.justRecovered
      if (finished?.undo && this.recovered) {
        return { ...this.recovered, undid: all.find((s) => s.tag === finished.target)?.rollbackTarget ?? '' }
      }
      const latest = all.find((s) => s.kind === 'safety' && s.rollbackTarget !== null)
      const journal = await readUndoJournal(this.paths.gitDir)
      // Still ours when nothing but the undo itself (or its retries) rolled back since it started.
      const resumed =
        journal && (latest?.tag === journal.undoing || latest?.rollbackTarget === journal.undoing)
          ? all.find((s) => s.tag === journal.undoing)
          : undefined
      const last = resumed ?? latest
      if (!last)
        throw new AppError('not-found', 'Nothing to undo: no rollback has been made in this project.')
      await writeUndoJournal(this.paths.gitDir, { undoing: last.tag, startedAt: this.now() })
      const report = await this.rollbackUnlocked(last.tag, true)
      return { ...report, undid: last.rollbackTarget ?? '' }
    })
  }

  /** Checks every snapshot's data; lists the damaged ones (objects deleted outside Ralph). */
  async verify(): Promise<{ checked: number; damaged: { tag: string; missingObjects: number }[] }> {
    return this.readOnly(
      async () => {
        // Every tag, not only those whose commit still reads: a tag whose commit is gone is the most damaged.
        const out = await this.git.text([
          'for-each-ref',
          '--format=%(refname:strip=2) %(objectname)',
          'refs/tags',
        ])
        const tags = out
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split(' ') as [string, string])
        const damaged: { tag: string; missingObjects: number }[] = []
        for (const [tag, commit] of tags) {
          const missing = await this.missingObjects(commit)
          if (missing > 0) damaged.push({ tag, missingObjects: missing })
        }
        return { checked: tags.length, damaged }
      },
      () => ({ checked: 0, damaged: [] }),
    )
  }

  async usage(): Promise<UsageResult> {
    return this.readOnly(
      async () => {
        const sizes = await this.storeSizes()
        return { ...sizes, snapshotCount: (await this.listAll()).length }
      },
      () => ({ storeBytes: 0, looseObjects: 0, packs: 0, snapshotCount: 0 }),
    )
  }

  /** Deletes old manual-/safety- snapshots (never task-* or stall-*) and drops unreferenced objects. */
  prune(options: PruneOptions = {}): Promise<PruneResult> {
    const run = options.dryRun ? this.locked.bind(this) : this.writeLocked.bind(this)
    return run('prune', async () => {
      const all = await this.listAll()
      const head = await readRef(this.paths.gitDir, BRANCH_REF)
      const remove = pruneCandidates(all, head, options, this.now())
      const bytesBefore = (await this.storeSizes()).storeBytes
      if (options.dryRun) return { removedTags: remove, bytesBefore, bytesAfter: bytesBefore, dryRun: true }
      await pruneStore(this.git, remove, async () => {
        await this.opts.index?.remove(remove)
      })
      const bytesAfter = (await this.storeSizes()).storeBytes
      return { removedTags: remove, bytesBefore, bytesAfter, dryRun: false }
    })
  }

  // ---- internals ----

  /** Work that changes snapshots or files: refused while someone else's task runs on the project. */
  private writeLocked<T>(op: string, fn: () => Promise<T>): Promise<T> {
    return this.locked(op, fn, true)
  }

  private async locked<T>(op: string, fn: () => Promise<T>, write = false): Promise<T> {
    await this.preflight()
    return withProjectLock(
      this.lockKey!,
      this.paths.lockFile,
      op,
      { timeoutMs: this.opts.lockTimeoutMs },
      async () => {
        if (write) await this.refuseDuringOthersTask()
        await this.ensureStore()
        this.justRecovered = await this.recoverRollback()
        return fn()
      },
      (info) =>
        this.repairs.push(
          `Removed a stale snapshot lock${info ? ` left by process ${info.pid} (${info.op})` : ''}`,
        ),
    )
  }

  private async refuseDuringOthersTask(): Promise<void> {
    const task = await runningTask(this.paths.projectDir)
    if (task && task.raw !== this.opts.taskLock?.token) throw busyError(task.info)
  }

  /**
   * Read-only work: no store means nothing to read (and nothing is created); a store is checked and repaired
   * once when the project can be written, and otherwise read as it is, without the lock file (DESIGN.md §5).
   */
  private async readOnly<T>(fn: () => Promise<T>, none: () => T): Promise<T> {
    if (!storeLooksComplete(this.paths.gitDir)) return none()
    await this.checkGit()
    if (!this.opened && (await this.writable())) await this.open()
    return fn()
  }

  /**
   * Work that stages the working tree (status, a diff against it, a preview) writes the store's index and
   * objects: under the lock when the project can be written, otherwise through a scratch overlay.
   */
  private async staged<T>(op: string, fn: (git: ShadowGit) => Promise<T>): Promise<T> {
    if (await this.writable()) return this.locked(op, () => fn(this.git))
    await this.checkGit()
    return withOverlay(this.paths.gitDir, this.paths.projectDir, this.opts, fn)
  }

  /** Whether the store can be written (a read-only folder, or a user without write permission: no). */
  private async writable(): Promise<boolean> {
    try {
      await access(this.paths.ralphDir, constants.W_OK)
      if (existsSync(this.paths.gitDir)) await access(this.paths.gitDir, constants.W_OK)
      return true
    } catch (err) {
      if (!isNotWritable(err))
        noteFailure(this.log, 'Could not tell whether the snapshot store can be written', err)
      return false
    }
  }

  private async preflight(): Promise<void> {
    if (this.lockKey !== null) return
    await this.checkGit()
    // Synchronous: each is one small system call, and a CLI run would wait on the thread pool for every one.
    if (!isDirectory(this.paths.projectDir, this.log)) {
      throw new AppError('not-found', `The project folder ${this.paths.projectDir} does not exist.`)
    }
    await ensureRalphDir(this.paths)
    this.lockKey = realpathSync(this.paths.projectDir)
  }

  /** Once per engine: a missing or too old git is said plainly, before any git call fails obscurely. */
  private async checkGit(): Promise<void> {
    const cache = join(this.paths.gitDir, 'info', 'ralph-git-version')
    this.gitChecked ??= cachedGitVersion(this.opts.gitBinary ?? 'git', cache).then(() => undefined)
    await this.gitChecked
  }

  private async ensureStore(): Promise<void> {
    if (!storeLooksComplete(this.paths.gitDir)) {
      const existed = await stat(this.paths.gitDir).catch(
        unlessMissing(this.log, 'Could not examine the snapshot store', null),
      )
      await initStore(this.git)
      if (existed) this.repairs.push('Finished creating a snapshot store whose creation was interrupted')
      this.opened = true
      return
    }
    if (this.opened) return
    this.repairs.push(...(await repairStore(this.git)))
    await writeInfoFiles(this.paths.gitDir)
    this.opened = true
  }

  private async stage(git: ShadowGit): Promise<StageResult> {
    try {
      return await stageWorkingTree(git, this.paths.projectDir, this.sizeCap, {
        ...this.stageHooks,
        log: this.log,
      })
    } catch (err) {
      if (!(err instanceof AppError) || !isIndexCorruption(err.message)) throw err
      await rebuildIndex(git)
      this.repairs.push('Rebuilt the damaged snapshot index')
      return stageWorkingTree(git, this.paths.projectDir, this.sizeCap, { ...this.stageHooks, log: this.log })
    }
  }

  private async stageAndWriteTree(git: ShadowGit): Promise<{ tree: string; stage: StageResult }>
  private async stageAndWriteTree(
    git: ShadowGit,
    countFrom: string,
  ): Promise<{ tree: string; stage: StageResult; changes: ChangeCounts }>
  /** Stages the work tree and writes its tree; with `countFrom`, also counts the changes since that tree. */
  private async stageAndWriteTree(
    git: ShadowGit,
    countFrom?: string,
  ): Promise<{ tree: string; stage: StageResult; changes?: ChangeCounts }> {
    let stage = await this.stage(git)
    if (stage.staged) {
      // Staged in-process: the tree is written, and the changes since the previous index are known.
      const { tree, previousTree, changes } = stage.staged
      if (countFrom === undefined) return { tree, stage }
      if (countFrom !== EMPTY_TREE && previousTree !== null && this.treeOf(countFrom) === previousTree) {
        return { tree, stage, changes }
      }
      return { tree, stage, changes: await this.countIndexChanges(git, countFrom) }
    }
    // Nothing staged, and the index's tree is the snapshot's own: no change since it, and no git to start (the
    // common `ralph snapshot status`). Any other case asks git, which also checks the objects are all there.
    const unchangedTree = stage.unchanged?.tree
    if (unchangedTree && countFrom !== undefined && countFrom !== EMPTY_TREE) {
      if (this.treeOf(countFrom) === unchangedTree) {
        return { tree: unchangedTree, stage, changes: noChanges() }
      }
    }
    // The count reads the same index write-tree does, so both run at once.
    const writeTree = () => git.text(['write-tree']).then((t) => t.trim())
    const [tree, changes] = await Promise.all([
      writeTree().catch(async (err: unknown) => {
        // Objects deleted from the store behind our back: the index names blobs that are gone. Reading every
        // file again stores them anew (write-tree refuses an index naming a missing object, so nothing broken
        // is ever committed).
        if (!(err instanceof AppError) || !/invalid object|missing/i.test(err.message)) throw err
        await rm(join(git.indexDir, 'index'), { force: true })
        stage = await this.stage(git)
        this.repairs.push('Re-read every file: the snapshot store had lost objects its index named')
        return writeTree()
      }),
      countFrom === undefined ? undefined : this.countIndexChanges(git, countFrom),
    ])
    return { tree, stage, changes }
  }

  private async saveUnlocked(
    options: SaveOptions,
    rollbackTarget: string | null,
    staged?: Staged,
  ): Promise<SaveResult> {
    const start = performance.now()
    if (!snapshotKinds.includes(options.kind)) {
      throw new AppError('invalid-input', `Unknown snapshot kind "${String(options.kind)}".`)
    }
    const hooks = { signal: options.signal, onProgress: options.onProgress }
    throwIfCancelled(hooks)
    const createdAt = this.now()
    const base = baseTagName(options.kind, options.task, createdAt)
    const head = await readRef(this.paths.gitDir, BRANCH_REF)
    await removeStaleTempFiles(this.paths.ralphDir)
    // Staged moments ago under the same lock, on the same branch: the work tree is not staged twice.
    const {
      tree,
      stage,
      changes: counts,
    } = staged?.head === head ? staged : await this.stageWith(hooks, head)
    // The last moment a Cancel keeps the snapshot from existing.
    throwIfCancelled(hooks)
    const tag = await uniqueTagName(
      base,
      async (t) => (await readRef(this.paths.gitDir, `refs/tags/${t}`)) !== null,
    )
    const meta: Omit<SnapshotMeta, 'commit'> = {
      tag,
      kind: options.kind,
      task: taskOf(options),
      message: options.message ?? '',
      createdAt,
      ...counts,
      skipped: stage.skipped,
      skippedTotal: stage.skipped.length,
      durationMs: Math.round(performance.now() - start),
      rollbackTarget,
    }
    const modes = nextManifest(
      this.paths.projectDir,
      head ? await this.modesOf(head) : {},
      stage.modes,
      stage.skipped,
    )
    const modesLine = modesTrailer(modes)
    const seconds = Math.floor(createdAt / 1000)
    const message = commitMessage(meta, modesLine ? [modesLine] : [])
    const commit = (
      await this.git.text(['commit-tree', tree], {
        input: message,
        env: { GIT_AUTHOR_DATE: `@${seconds} +0000`, GIT_COMMITTER_DATE: `@${seconds} +0000` },
      })
    ).trim()
    // Tag and position move together in one ref transaction: both are locked before either is written.
    await this.git.run(['update-ref', '--stdin'], {
      input: `create refs/tags/${tag} ${commit}\nupdate ${BRANCH_REF} ${commit}\n`,
    })
    this.modesCache = { commit, modes }
    await consolidatePacks(this.git)
    const parsed = parseCommitMessage(tag, commit, commitMessage(meta))!
    const result: SaveResult = {
      ...parsed,
      skipped: stage.skipped,
      skippedTotal: stage.skipped.length,
      durationMs: Math.round(performance.now() - start),
    }
    await this.recordIndex(result)
    return result
  }

  /** Stages the work tree for a save (its cancel and progress hooks in force), counting changes since `head`. */
  private async stageWith(hooks: SaveHooks, head: string | null) {
    this.stageHooks = hooks
    try {
      return await this.stageAndWriteTree(this.git, head ?? EMPTY_TREE)
    } finally {
      this.stageHooks = {}
    }
  }

  /** How many of the objects a snapshot needs are missing from the store (deleted outside Ralph). */
  private async missingObjects(commit: string, git = this.git): Promise<number> {
    const res = await git.run(['rev-list', '--objects', '--missing=print', commit], { okCodes: [0, 128] })
    if (res.code !== 0) return 1 // the commit itself cannot be read
    return res.stdout
      .toString('utf8')
      .split('\n')
      .filter((l) => l.startsWith('?')).length
  }

  /** The mode manifest recorded with a snapshot commit (the last one is kept: saves read their parent's). */
  private async modesOf(commit: string): Promise<ModeManifest> {
    if (this.modesCache?.commit === commit) return this.modesCache.modes
    const modes = parseModesTrailer(await this.commitText(commit))
    this.modesCache = { commit, modes }
    return modes
  }

  /** A commit's tree when the commit is stored loose (snapshot commits are, until a prune repacks them). */
  private treeOf(commit: string): string | null {
    const text = readLooseCommit(this.paths.gitDir, commit)
    return text === null ? null : treeOfCommit(text)
  }

  /** A commit object's text (headers and message); empty when it cannot be read. */
  private async commitText(commit: string): Promise<string> {
    const loose = readLooseCommit(this.paths.gitDir, commit)
    if (loose !== null) return loose
    const res = await this.git.run(['cat-file', 'commit', commit], { okCodes: [0, 128] })
    return res.code === 0 ? res.stdout.toString('utf8') : ''
  }

  private async recordIndex(meta: SnapshotMeta): Promise<void> {
    if (!this.opts.index) return
    // The store is the source of truth; the mirror can be rebuilt from `list`.
    const index = this.opts.index
    await attemptAsync(
      this.log,
      `Could not mirror snapshot ${meta.tag} into the snapshot list`,
      async () => index.record(meta),
      undefined,
    )
  }

  private async rollbackUnlocked(tag: string, undo: boolean): Promise<RollbackReport> {
    const start = performance.now()
    const target = await this.resolveTag(tag)
    // Named by what it undoes, in words ("Before rolling back to before Task 2"); the target's tag is in its meta.
    const safety = await this.saveUnlocked(
      { kind: 'safety', message: `Before rolling back to ${tagWords(tag)}` },
      tag,
    )
    this.opts.faultHook?.('rollback-safety-saved')
    const stage = { skipped: safety.skipped, nestedRepos: [], modes: new Map() }
    const plan = await planMove(this.parts, safety.commit, target, stage, tag)
    await assertIntact(this.git, tag, plan)
    const journal: RollbackJournal = {
      target: tag,
      targetCommit: target,
      safetyTag: safety.tag,
      safetyCommit: safety.commit,
      startedAt: this.now(),
      undo,
    }
    await applyMove(this.parts, plan, journal)
    this.notice = null
    return moveReport(plan, tag, target, safety.tag, false, start)
  }

  /**
   * Finishes an interrupted apply that opening the store could not finish on its own: a safety snapshot (naming
   * no rollback target, so no task reads as rolled back) keeps the files as they are, then the move completes.
   */
  private async finishApply(journal: RollbackJournal): Promise<RollbackReport> {
    const start = performance.now()
    const kept = await this.saveUnlocked(
      { kind: 'safety', message: `Before finishing the interrupted apply of task ${journal.apply!.task}` },
      null,
    )
    const { tree, stage } = await this.stageAndWriteTree(this.git)
    const plan = await planMove(this.parts, tree, journal.targetCommit, stage, journal.target)
    await assertIntact(this.git, journal.target, plan)
    await applyMove(this.parts, plan, journal, () => settleApply(this.parts, journal))
    return moveReport(plan, journal.target, journal.targetCommit, kept.tag, false, start)
  }

  /**
   * Finds the journal of a rollback (or an apply) that was killed midway, by any host, and finishes it when that
   * is safe (rollbackApply.ts); otherwise the journal stays and the notice asks the user to Finish rollback. Runs
   * once per journal per engine. A finished apply is said among the repairs: it is no rollback, and the timeline
   * shows it as its task-N-pre and task-N-post.
   */
  private async recoverRollback(): Promise<RollbackJournal | null> {
    const journal = await readRollbackJournal(this.paths.gitDir)
    if (!journal || this.recoveryTried === journal.startedAt) return null
    this.recoveryTried = journal.startedAt
    const apply = journal.apply
    const outcome = await finishInterrupted(
      this.parts,
      journal,
      apply && (() => settleApply(this.parts, journal)),
    )
    if (outcome.kind === 'interrupted') {
      this.notice = interruptedNotice(journal, outcome.reason)
      return null
    }
    this.notice = null
    if (apply) {
      this.repairs.push(finishedApplyMessage(journal))
      return journal
    }
    const { plan, start } = outcome
    this.recovered = moveReport(plan, journal.target, journal.targetCommit, journal.safetyTag, false, start)
    const message =
      `${rollbackWhat(journal)} was interrupted and has been finished: the project is at ${journal.target}. ` +
      `${journal.safetyTag} holds the files from before it (Undo in the Timeline, or "ralph snapshot undo", goes back to them).`
    this.notice = {
      ...{ state: 'finished', target: journal.target, safetyTag: journal.safetyTag },
      ...{ undo: journal.undo, startedAt: journal.startedAt, reason: null, message },
    }
    // Kept for whichever host shows the project next: this engine's owner may have no one to tell.
    await writeFinishedNotice(this.paths.gitDir, this.notice).catch((err: unknown) =>
      this.repairs.push(`${message} (Its notice could not be kept: ${(err as Error).message})`),
    )
    return journal
  }

  private async listAll(): Promise<SnapshotMeta[]> {
    if (!storeLooksComplete(this.paths.gitDir)) return []
    const records = tagMessagesInProcess(this.paths.gitDir) ?? (await this.tagMessagesFromGit())
    const items: SnapshotMeta[] = []
    for (const { tag, commit, text } of records) {
      const meta = parseCommitMessage(tag, commit, text)
      if (meta) items.push(meta)
    }
    items.sort((a, b) => b.createdAt - a.createdAt || (a.tag < b.tag ? 1 : -1))
    return items
  }

  private async tagMessagesFromGit(): Promise<TagMessage[]> {
    const out = await this.git.text([
      'for-each-ref',
      '--format=%(refname:strip=2)%00%(objectname)%00%(contents)%01',
      'refs/tags',
    ])
    const records: TagMessage[] = []
    for (const record of out.split('\x01')) {
      const rec = record.startsWith('\n') ? record.slice(1) : record
      const [tag, commit, text] = rec.split('\0')
      if (!tag || !commit || text === undefined) continue
      records.push({ tag, commit, text })
    }
    return records
  }

  private async resolveTag(tag: string): Promise<string> {
    assertTagName(tag)
    return (await readRef(this.paths.gitDir, `refs/tags/${tag}`)) ?? noSuchTag(tag)
  }

  /** Files added, modified and deleted in the index since the tree `from`. */
  private async countIndexChanges(git: ShadowGit, from: string): Promise<ChangeCounts> {
    if (from === EMPTY_TREE) {
      // A first snapshot adds everything: the index header holds the count (diff-index would list every file).
      const names = readIndex(git.indexDir)?.names
      const ralph = names && {
        ...noChanges().ralph,
        added: names.filter((n) => isRalphOwnPath(n.toString())).length,
      }
      return { added: await indexEntryCount(git.indexDir), modified: 0, deleted: 0, ralph }
    }
    return countNameStatus(
      await git.fields(['diff-index', '--cached', '-z', '--no-renames', '--name-status', from]),
    )
  }

  private async diffTrees(from: string, to: string, renames: boolean, git = this.git): Promise<DiffEntry[]> {
    const args = ['diff-tree', '-r', '-z', '--name-status', renames ? '-M' : '--no-renames', from, to]
    return parseNameStatus(await git.fields(args))
  }

  private async lookupBlob(commit: string, rel: string): Promise<{ sha: string; size: number } | null> {
    let object = `${commit}:${rel}`
    if (rel.includes('\n')) {
      // --batch-check reads one name per line; such a path is resolved on the command line instead.
      const res = await this.git.run(['rev-parse', '--verify', '-q', object], { okCodes: [0, 1, 128] })
      if (res.code !== 0) return null
      object = res.stdout.toString().trim()
    }
    const out = await this.git.text(['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], {
      input: `${object}\n`,
    })
    const m = /^([0-9a-f]{40}) blob (\d+)$/m.exec(out)
    return m ? { sha: m[1]!, size: Number(m[2]) } : null
  }

  private async blobSide(commit: string, rel: string, maxBytes: number): Promise<FileSide> {
    const obj = await this.lookupBlob(commit, rel)
    if (!obj) return { ...ABSENT }
    if (obj.size > maxBytes) return tooLargeSide(obj.size)
    const buf = (await this.git.run(['cat-file', 'blob', obj.sha])).stdout
    return sideFromBuffer(buf)
  }

  private storeSizes(): Promise<Omit<UsageResult, 'snapshotCount'>> {
    return storeSizes(this.paths.gitDir, this.log)
  }
}

/** Task snapshots name their task; the others may carry one (a manual save during a task) or none. */
function taskOf(options: SaveOptions): number | null {
  switch (options.kind) {
    case 'task-pre':
    case 'task-post':
    case 'stall-recovery':
      return options.task!
    default:
      return options.task ?? null
  }
}

function noSuchTag(tag: string): never {
  assertTagName(tag)
  throw new AppError(
    'not-found',
    `There is no snapshot "${tag}". "ralph snapshot list" shows the snapshots.`,
    {
      tag,
    },
  )
}

function isDirectory(path: string, log: Logger): boolean {
  return attemptUnlessMissing(log, `Could not examine ${path}`, () => statSync(path).isDirectory(), false)
}

/** Access errors that mean "not writable here" (permissions, a read-only file system), or a folder not there. */
function isNotWritable(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code
  return isMissing(err) || code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
}
