import { lstat, readlink, readFile, readdir, realpath, stat } from 'node:fs/promises'
import { lstatSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { AppError } from '../../shared/errors'
import { applyChanges, changedOnDisk, parseRawDiff, type TreeChange } from './applyChanges'
import { DEFAULT_SIZE_CAP, NestedRepoDetector } from './exclusions'
import { ShadowGit, checkGitVersion, type GitIdentity } from './git'
import { withProjectLock } from './lock'
import { normaliseProjectPath } from './paths'
import { isIndexCorruption, rebuildIndex, repairStore } from './repair'
import { stageWorkingTree, type StageResult } from './stage'
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
import { assertTagName, baseTagName, commitMessage, parseCommitMessage, uniqueTagName } from './tags'
import {
  snapshotKinds,
  type ChangeCounts,
  type DiffEntry,
  type DiffResult,
  type FileDiff,
  type FileSide,
  type LeftAlone,
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
  private opened = false
  private repairs: string[] = []
  private lockKey: string | null = null

  constructor(private readonly opts: SnapshotEngineOptions) {
    const projectDir = resolve(opts.projectDir)
    this.paths = storePaths(projectDir)
    this.git = new ShadowGit(this.paths.gitDir, projectDir, opts.identity, opts.gitBinary)
    this.sizeCap = opts.sizeCap ?? DEFAULT_SIZE_CAP
    this.now = opts.now ?? Date.now
  }

  /** Opens the store (creating it on first use) and repairs what an earlier crash left. */
  async open(): Promise<RepairReport> {
    await this.locked('open', async () => undefined)
    return { repairs: [...this.repairs] }
  }

  save(options: SaveOptions): Promise<SaveResult> {
    return this.locked('save', () => this.saveUnlocked(options, null))
  }

  async list(options: ListOptions = {}): Promise<ListResult> {
    const all = await this.readOnly(() => this.listAll())
    const filtered = all.filter(
      (s) =>
        (options.kind === undefined || s.kind === options.kind) &&
        (options.task === undefined || s.task === options.task),
    )
    const offset = Math.max(0, options.offset ?? 0)
    const limit = Math.max(0, options.limit ?? 100)
    return { items: filtered.slice(offset, offset + limit), total: filtered.length }
  }

  /** File-level changes from `target` to `against` (a snapshot) or to the working tree. */
  async diff(target: string, against?: string): Promise<DiffResult> {
    const from = await this.readOnly(() => this.resolveTag(target))
    const compute = async (toTree: string): Promise<DiffResult> => {
      const entries = await this.diffTrees(from, toTree, true)
      const counts = { added: 0, modified: 0, deleted: 0, renamed: 0 }
      for (const e of entries) {
        if (e.status === 'typechange') counts.modified++
        else counts[e.status]++
      }
      return { from: target, to: against ?? null, entries, counts }
    }
    if (against !== undefined) return compute(await this.readOnly(() => this.resolveTag(against)))
    return this.locked('diff', async () => compute((await this.stageAndWriteTree()).tree))
  }

  /** One file's content on both sides, for a diff viewer; large and binary files become placeholders. */
  async fileDiff(
    target: string,
    path: string,
    against?: string,
    maxBytes = DEFAULT_FILE_DIFF_LIMIT,
  ): Promise<FileDiff> {
    const rel = normaliseProjectPath(path)
    const from = await this.readOnly(() => this.resolveTag(target))
    const oldSide = await this.blobSide(from, rel, maxBytes)
    const newSide =
      against !== undefined
        ? await this.blobSide(await this.resolveTag(against), rel, maxBytes)
        : await this.worktreeSide(rel, maxBytes)
    return { path: rel, from: target, to: against ?? null, old: oldSide, new: newSide }
  }

  async show(tag: string, path: string): Promise<ShowResult> {
    const rel = normaliseProjectPath(path)
    const commit = await this.readOnly(() => this.resolveTag(tag))
    const obj = await this.lookupBlob(commit, rel)
    if (!obj) throw new AppError('not-found', `"${rel}" is not in snapshot ${tag}.`)
    const content = (await this.git.run(['cat-file', 'blob', obj.sha])).stdout
    return { tag, path: rel, size: obj.size, binary: isBinary(content), content }
  }

  status(): Promise<StatusResult> {
    return this.locked('status', async () => {
      const head = await readRef(this.paths.gitDir, BRANCH_REF)
      const { changes } = await this.stageAndWriteTree(head ?? EMPTY_TREE)
      const all = await this.listAll()
      const position = head ? (all.find((s) => s.commit === head) ?? null) : null
      const latest = all[0] ?? null
      return {
        position,
        latest,
        dirty: changes.added + changes.modified + changes.deleted > 0,
        changes,
        trackedFiles: await indexEntryCount(this.paths.gitDir),
        snapshotCount: all.length,
        lastSnapshotAt: latest?.createdAt ?? null,
        repairs: [...this.repairs],
      }
    })
  }

  previewRollback(tag: string): Promise<RollbackReport> {
    return this.locked('preview', async () => {
      const start = performance.now()
      const target = await this.resolveTag(tag)
      const { tree, stage } = await this.stageAndWriteTree()
      const plan = await this.planRollback(tree, target, stage)
      return this.report(plan, tag, target, null, true, start)
    })
  }

  rollback(tag: string): Promise<RollbackReport> {
    return this.locked('rollback', () => this.rollbackUnlocked(tag))
  }

  /** Rolls back to the safety snapshot taken by the most recent rollback. */
  undo(): Promise<RollbackReport & { undid: string }> {
    return this.locked('undo', async () => {
      const last = (await this.listAll()).find((s) => s.kind === 'safety' && s.rollbackTarget !== null)
      if (!last)
        throw new AppError('not-found', 'Nothing to undo: no rollback has been made in this project.')
      const report = await this.rollbackUnlocked(last.tag)
      return { ...report, undid: last.rollbackTarget ?? '' }
    })
  }

  async usage(): Promise<UsageResult> {
    return this.readOnly(async () => {
      const sizes = await this.storeSizes()
      return { ...sizes, snapshotCount: (await this.listAll()).length }
    })
  }

  /** Deletes old manual-/safety- snapshots (never task-* or stall-*) and drops unreferenced objects. */
  prune(options: PruneOptions = {}): Promise<PruneResult> {
    return this.locked('prune', async () => {
      const all = await this.listAll()
      const undoTarget = all.find((s) => s.kind === 'safety' && s.rollbackTarget !== null)
      const head = await readRef(this.paths.gitDir, BRANCH_REF)
      const cutoff =
        options.olderThanDays !== undefined ? this.now() - options.olderThanDays * 86_400_000 : null
      const remove: string[] = []
      if (cutoff !== null || options.keepLast !== undefined) {
        for (const kind of ['manual', 'safety'] as const) {
          const ofKind = all.filter((s) => s.kind === kind)
          ofKind.forEach((s, i) => {
            // Undo must keep working, and the current position keeps its name.
            if (s.tag === undoTarget?.tag || s.commit === head) return
            const old = cutoff === null || s.createdAt < cutoff
            const beyond = options.keepLast === undefined || i >= options.keepLast
            if (old && beyond) remove.push(s.tag)
          })
        }
      }
      const bytesBefore = (await this.storeSizes()).storeBytes
      if (options.dryRun) return { removedTags: remove, bytesBefore, bytesAfter: bytesBefore, dryRun: true }
      if (remove.length > 0) {
        await this.git.run(['update-ref', '--stdin'], {
          input: remove.map((t) => `delete refs/tags/${t}\n`).join(''),
        })
        await this.opts.index?.remove(remove)
      }
      await this.git.run(['pack-refs', '--all', '--prune'])
      await this.git.run(['repack', '-a', '-d', '-q'])
      await this.git.run(['prune', '--expire=now'])
      const bytesAfter = (await this.storeSizes()).storeBytes
      return { removedTags: remove, bytesBefore, bytesAfter, dryRun: false }
    })
  }

  // ---- internals ----

  private async locked<T>(op: string, fn: () => Promise<T>): Promise<T> {
    await this.preflight()
    return withProjectLock(
      this.lockKey!,
      this.paths.lockFile,
      op,
      { timeoutMs: this.opts.lockTimeoutMs },
      async () => {
        await this.ensureStore()
        return fn()
      },
      (info) =>
        this.repairs.push(
          `Removed a stale snapshot lock${info ? ` left by process ${info.pid} (${info.op})` : ''}`,
        ),
    )
  }

  /** Read-only work needs no lock once the store is known to be healthy. */
  private async readOnly<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.opened) await this.open()
    return fn()
  }

  private async preflight(): Promise<void> {
    if (this.lockKey !== null) return
    await checkGitVersion(this.opts.gitBinary)
    const st = await stat(this.paths.projectDir).catch(() => null)
    if (!st?.isDirectory()) {
      throw new AppError('not-found', `The project folder ${this.paths.projectDir} does not exist.`)
    }
    await ensureRalphDir(this.paths)
    this.lockKey = await realpath(this.paths.projectDir)
  }

  private async ensureStore(): Promise<void> {
    if (!storeLooksComplete(this.paths.gitDir)) {
      const existed = await stat(this.paths.gitDir).catch(() => null)
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

  private async stage(): Promise<StageResult> {
    try {
      return await stageWorkingTree(this.git, this.paths.projectDir, this.sizeCap)
    } catch (err) {
      if (!(err instanceof AppError) || !isIndexCorruption(err.message)) throw err
      await rebuildIndex(this.git)
      this.repairs.push('Rebuilt the damaged snapshot index')
      return stageWorkingTree(this.git, this.paths.projectDir, this.sizeCap)
    }
  }

  private async stageAndWriteTree(): Promise<{ tree: string; stage: StageResult }>
  private async stageAndWriteTree(
    countFrom: string,
  ): Promise<{ tree: string; stage: StageResult; changes: ChangeCounts }>
  /** Stages the work tree and writes its tree; with `countFrom`, also counts the changes since that tree. */
  private async stageAndWriteTree(
    countFrom?: string,
  ): Promise<{ tree: string; stage: StageResult; changes?: ChangeCounts }> {
    const stage = await this.stage()
    // The count reads the same index write-tree does, so both run at once.
    const [tree, changes] = await Promise.all([
      this.git.text(['write-tree']).then((t) => t.trim()),
      countFrom === undefined ? undefined : this.countIndexChanges(countFrom),
    ])
    return { tree, stage, changes }
  }

  private async saveUnlocked(options: SaveOptions, rollbackTarget: string | null): Promise<SaveResult> {
    const start = performance.now()
    if (!snapshotKinds.includes(options.kind)) {
      throw new AppError('invalid-input', `Unknown snapshot kind "${String(options.kind)}".`)
    }
    const createdAt = this.now()
    const base = baseTagName(options.kind, options.task, createdAt)
    const head = await readRef(this.paths.gitDir, BRANCH_REF)
    const { tree, stage, changes: counts } = await this.stageAndWriteTree(head ?? EMPTY_TREE)
    const tag = await uniqueTagName(
      base,
      async (t) => (await readRef(this.paths.gitDir, `refs/tags/${t}`)) !== null,
    )
    const meta: Omit<SnapshotMeta, 'commit'> = {
      tag,
      kind: options.kind,
      task: options.kind === 'manual' || options.kind === 'safety' ? (options.task ?? null) : options.task!,
      message: options.message ?? '',
      createdAt,
      ...counts,
      skipped: stage.skipped,
      skippedTotal: stage.skipped.length,
      durationMs: Math.round(performance.now() - start),
      rollbackTarget,
    }
    const date = `@${Math.floor(createdAt / 1000)} +0000`
    const commit = (
      await this.git.text(['commit-tree', tree], {
        input: commitMessage(meta),
        env: { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
      })
    ).trim()
    // Tag and position move together in one ref transaction: a crash leaves both or neither.
    await this.git.run(['update-ref', '--stdin'], {
      input: `create refs/tags/${tag} ${commit}\nupdate ${BRANCH_REF} ${commit}\n`,
    })
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

  private async recordIndex(meta: SnapshotMeta): Promise<void> {
    if (!this.opts.index) return
    try {
      await this.opts.index.record(meta)
    } catch {
      // The store is the source of truth; the mirror can be rebuilt from `list`.
    }
  }

  private async rollbackUnlocked(tag: string): Promise<RollbackReport> {
    const start = performance.now()
    const target = await this.resolveTag(tag)
    const safety = await this.saveUnlocked({ kind: 'safety', message: `Before rolling back to ${tag}` }, tag)
    const plan = await this.planRollback(safety.commit, target, { skipped: safety.skipped, nestedRepos: [] })
    if (plan.written.length + plan.deleted.length > 0) {
      const byPath = new Map(plan.changes.map((c) => [c.path, c]))
      const writes = plan.written.map((w) => byPath.get(w.path)!)
      const deletes = plan.deleted.map((p) => byPath.get(p)!)
      // The safety snapshot hashed these files moments ago; one edited since then would be lost for good.
      const edited = changedOnDisk(this.paths.projectDir, [...writes, ...deletes])
      if (edited.length > 0) {
        throw new AppError(
          'busy',
          `${edited.slice(0, 3).join(', ')}${edited.length > 3 ? ` and ${edited.length - 3} more` : ''} ` +
            'changed while the rollback was starting, so nothing was rolled back. ' +
            'Stop whatever is editing the project and roll back again.',
          { edited },
        )
      }
      const { blocked } = await applyChanges(this.git, this.paths.projectDir, writes, deletes)
      if (blocked.length > 0) {
        const set = new Set(blocked)
        plan.written = plan.written.filter((w) => !set.has(w.path))
        for (const path of blocked) plan.leftAlone.push({ path, reason: 'in-the-way' })
      }
      // Record the new content's stat info, so the next save does not re-read what was just written.
      // Deletions first: a file may take the place of a folder it replaces (and the other way round).
      await this.git.run(['update-index', '-z', '--add', '--remove', '--replace', '--stdin'], {
        input: [...plan.deleted, ...plan.written.map((w) => w.path)].join('\0'),
      })
    }
    await this.git.run(['update-ref', BRANCH_REF, target])
    return this.report(plan, tag, target, safety.tag, false, start)
  }

  private report(
    plan: RollbackPlan,
    tag: string,
    target: string,
    safetyTag: string | null,
    preview: boolean,
    start: number,
  ): RollbackReport {
    return {
      preview,
      target: tag,
      targetCommit: target,
      safetyTag,
      written: plan.written,
      deleted: plan.deleted,
      leftAlone: plan.leftAlone,
      skipped: plan.skipped,
      durationMs: Math.round(performance.now() - start),
    }
  }

  /** What moving from `from` (the current state) to `target` changes, and what it must leave alone. */
  private async planRollback(from: string, target: string, stage: StageResult): Promise<RollbackPlan> {
    const changes = parseRawDiff(
      await this.git.fields(['diff-tree', '-r', '-z', '--no-renames', '--raw', from, target]),
    )
    const written: RollbackPlan['written'] = []
    const deleted: string[] = []
    const added: string[] = []
    for (const c of changes) {
      if (c.status === 'D') deleted.push(c.path)
      else if (c.status === 'A') added.push(c.path)
      else written.push({ path: c.path, change: c.status === 'T' ? 'typechange' : 'modified' })
    }
    const deletedSet = new Set(deleted)
    const deletedLower = new Set(deleted.map((p) => p.toLowerCase()))
    const detector = new NestedRepoDetector(this.paths.projectDir)
    const leftAlone: LeftAlone[] = []
    for (const path of added) {
      const reason = this.conflictFor(path, deletedSet, deletedLower, detector)
      if (reason) leftAlone.push({ path, reason })
      else written.push({ path, change: 'added' })
    }
    written.sort((a, b) => (a.path < b.path ? -1 : 1))
    return { written, deleted, leftAlone, skipped: stage.skipped, changes }
  }

  /**
   * A path the target has but the current snapshot lacks must not overwrite anything on disk: whatever is
   * there now (an ignored or oversized file, a nested repo) is not in the safety snapshot, so undo could
   * not bring it back.
   */
  private conflictFor(
    path: string,
    deletedSet: Set<string>,
    deletedLower: Set<string>,
    detector: NestedRepoDetector,
  ): LeftAlone['reason'] | null {
    if (detector.containing(path) !== null) return 'nested-repo'
    const st = lstatOrNull(join(this.paths.projectDir, path))
    if (
      st &&
      !(st.isDirectory() && onlyDeletedFiles(this.paths.projectDir, path, deletedSet)) &&
      !this.isCaseVariantOfDeleted(path, deletedLower)
    )
      return 'ignored-or-skipped'
    let idx = path.indexOf('/')
    while (idx !== -1) {
      const dir = path.slice(0, idx)
      const st = lstatOrNull(join(this.paths.projectDir, dir))
      if (st && !st.isDirectory() && !deletedSet.has(dir)) return 'in-the-way'
      idx = path.indexOf('/', idx + 1)
    }
    return null
  }

  /**
   * On a case-insensitive file system (macOS, Windows) a rename that only changes case shows the new name as
   * existing: it is the old file, which the rollback deletes first. Only a file under exactly this name is in
   * the way.
   */
  private isCaseVariantOfDeleted(path: string, deletedLower: Set<string>): boolean {
    if (!deletedLower.has(path.toLowerCase())) return false
    const slash = path.lastIndexOf('/')
    const parent = join(this.paths.projectDir, slash === -1 ? '' : path.slice(0, slash))
    try {
      return !readdirSync(parent).includes(path.slice(slash + 1))
    } catch {
      return false
    }
  }

  private async listAll(): Promise<SnapshotMeta[]> {
    if (!storeLooksComplete(this.paths.gitDir)) return []
    const out = await this.git.text([
      'for-each-ref',
      '--format=%(refname:strip=2)%00%(objectname)%00%(contents)%01',
      'refs/tags',
    ])
    const items: SnapshotMeta[] = []
    for (const record of out.split('\x01')) {
      const rec = record.startsWith('\n') ? record.slice(1) : record
      const [tag, commit, text] = rec.split('\0')
      if (!tag || !commit || text === undefined) continue
      const meta = parseCommitMessage(tag, commit, text)
      if (meta) items.push(meta)
    }
    items.sort((a, b) => b.createdAt - a.createdAt || (a.tag < b.tag ? 1 : -1))
    return items
  }

  private async resolveTag(tag: string): Promise<string> {
    assertTagName(tag)
    const sha = await readRef(this.paths.gitDir, `refs/tags/${tag}`)
    if (!sha) {
      throw new AppError(
        'not-found',
        `There is no snapshot "${tag}". "ralph snapshot list" shows the snapshots.`,
        {
          tag,
        },
      )
    }
    return sha
  }

  /** Files added, modified and deleted in the index since the tree `from`. */
  private async countIndexChanges(from: string): Promise<ChangeCounts> {
    if (from === EMPTY_TREE) {
      // A first snapshot adds everything: the index header holds the count (diff-index would list every file).
      return { added: await indexEntryCount(this.paths.gitDir), modified: 0, deleted: 0 }
    }
    const fields = await this.git.fields([
      'diff-index',
      '--cached',
      '-z',
      '--no-renames',
      '--name-status',
      from,
    ])
    const counts = { added: 0, modified: 0, deleted: 0 }
    for (let i = 0; i < fields.length; i += 2) {
      const s = fields[i]![0]
      if (s === 'A') counts.added++
      else if (s === 'D') counts.deleted++
      else counts.modified++
    }
    return counts
  }

  private async diffTrees(from: string, to: string, renames: boolean): Promise<DiffEntry[]> {
    const args = ['diff-tree', '-r', '-z', '--name-status', renames ? '-M' : '--no-renames', from, to]
    const fields = await this.git.fields(args)
    const entries: DiffEntry[] = []
    for (let i = 0; i < fields.length; ) {
      const s = fields[i++]!
      const code = s[0]
      if (code === 'R' || code === 'C') {
        const oldPath = fields[i++]!
        const path = fields[i++]!
        if (code === 'R')
          entries.push({ status: 'renamed', path, oldPath, similarity: Number(s.slice(1)) || 0 })
        else entries.push({ status: 'added', path })
        continue
      }
      const path = fields[i++]!
      const status =
        code === 'A' ? 'added' : code === 'D' ? 'deleted' : code === 'T' ? 'typechange' : 'modified'
      entries.push({ status, path })
    }
    return entries
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
    if (!obj) return { exists: false, size: 0, binary: false, tooLarge: false, content: null }
    if (obj.size > maxBytes)
      return { exists: true, size: obj.size, binary: false, tooLarge: true, content: null }
    const buf = (await this.git.run(['cat-file', 'blob', obj.sha])).stdout
    return sideFromBuffer(buf)
  }

  private async worktreeSide(rel: string, maxBytes: number): Promise<FileSide> {
    const file = join(this.paths.projectDir, rel)
    const st = await lstat(file).catch(() => null)
    if (!st || st.isDirectory())
      return { exists: false, size: 0, binary: false, tooLarge: false, content: null }
    if (st.isSymbolicLink()) return sideFromBuffer(Buffer.from(await readlink(file)))
    if (st.size > maxBytes)
      return { exists: true, size: st.size, binary: false, tooLarge: true, content: null }
    return sideFromBuffer(await readFile(file))
  }

  private async storeSizes(): Promise<Omit<UsageResult, 'snapshotCount'>> {
    let storeBytes = 0
    let looseObjects = 0
    let packs = 0
    const walk = async (dir: string, depth: number, inObjects: boolean): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
      for (const e of entries) {
        const full = join(dir, e.name)
        if (e.isDirectory()) {
          await walk(full, depth + 1, inObjects || (depth === 0 && e.name === 'objects'))
        } else {
          const st = await lstat(full).catch(() => null)
          storeBytes += st?.size ?? 0
          if (inObjects && depth === 2 && /^[0-9a-f]{38}$/.test(e.name)) looseObjects++
          if (inObjects && e.name.endsWith('.pack')) packs++
        }
      }
    }
    await walk(this.paths.gitDir, 0, false)
    return { storeBytes, looseObjects, packs }
  }
}

interface RollbackPlan {
  written: RollbackReport['written']
  deleted: string[]
  leftAlone: LeftAlone[]
  skipped: RollbackReport['skipped']
  changes: TreeChange[]
}

function isBinary(buf: Buffer): boolean {
  return buf.subarray(0, 8000).includes(0)
}

function sideFromBuffer(buf: Buffer): FileSide {
  const binary = isBinary(buf)
  return {
    exists: true,
    size: buf.length,
    binary,
    tooLarge: false,
    content: binary ? null : buf.toString('utf8'),
  }
}

function lstatOrNull(file: string): ReturnType<typeof lstatSync> | null {
  try {
    return lstatSync(file)
  } catch {
    return null
  }
}

/** True when a folder holds nothing but files the rollback deletes, so it will be gone when the target is written. */
function onlyDeletedFiles(projectDir: string, dir: string, deleted: Set<string>): boolean {
  let entries
  try {
    entries = readdirSync(join(projectDir, dir), { withFileTypes: true })
  } catch {
    return false
  }
  return entries.every((e) => {
    const rel = `${dir}/${e.name}`
    return e.isDirectory() ? onlyDeletedFiles(projectDir, rel, deleted) : deleted.has(rel)
  })
}
