import { existsSync } from 'node:fs'
import {
  SnapshotEngine,
  snapshotKinds,
  type DiffResult,
  type FileDiff,
  type ListResult,
  type PruneResult,
  type RollbackReport,
  type SnapshotIndex,
  type SnapshotKind,
  type SnapshotMeta,
  type StatusResult,
} from '../../snapshots'
import type { Db } from '../../store/database'
import { databaseFile } from '../../workspace/appPaths'
import { cliAppDataDir } from '../appData'
import { recoverInterruptedTask } from '../../loop/crashRecovery'
import { checkProjectFolder } from '../../workspace/projectFolder'
import { encodeShown } from '../../snapshots/encodeShown'
import { expectPositionals, intFlag, numberFlag, stringFlag, usageError, type CliOptions } from '../args'
import { writeJson } from '../output'
import { ExitCode, type CliCommand, type CliContext } from '../types'
import { fallbackTo, isUnwritable, noteFailure, unlessExpected } from '../../workspace/failures'
import type { Logger } from '../../workspace/logFile'

const MUTATING = new Set(['save', 'rollback', 'undo', 'finish-rollback', 'prune'])

const USAGE = `Usage: ralph snapshot <action> [arguments] [--project DIR] [--json]

Actions:
  save [MESSAGE] [--kind KIND] [--task N]   take a snapshot (KIND: manual (default), task-pre, task-post,
                                            stall-recovery, safety; task kinds need --task N)
  list [--limit N] [--offset N] [--kind KIND] [--task N]
                                            snapshots, newest first
  diff TARGET [AGAINST] [--file PATH] [--max-bytes N]
                                            files changed from TARGET to AGAINST (default: the working tree);
                                            --file gives one file's content on both sides
  status                                    current position, whether files changed since, file count
  verify                                    check every snapshot's objects (exit 4 when some are damaged)
  show TAG PATH                             a file's content at a snapshot (raw bytes on stdout)
  preview TAG                               what a rollback to TAG would change, without changing anything
  rollback TAG [--preview]                  restore the project to TAG (a safety snapshot is taken first)
  undo                                      undo the last rollback
  finish-rollback                           finish a rollback or undo that was interrupted (a safety
                                            snapshot of the files as they are is taken first)
  usage                                     disk used by the snapshot store
  prune [--older-than DAYS] [--keep N] [--dry-run]
                                            delete old manual-/safety- snapshots (never task-*) and
                                            unreferenced data

A rollback or undo that was killed midway is finished by the next snapshot command when that is safe, or
reported (status says so) until finish-rollback completes it.

Snapshots live in DIR/.ralph/snapshots.git; your own .git is never touched.`

const options = {
  kind: { type: 'string' },
  task: { type: 'string' },
  limit: { type: 'string' },
  offset: { type: 'string' },
  file: { type: 'string' },
  'max-bytes': { type: 'string' },
  'older-than': { type: 'string' },
  keep: { type: 'string' },
  message: { type: 'string', short: 'm' },
  preview: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
} as const satisfies CliOptions

const int = (ctx: CliContext, name: string, min = 0) => intFlag(ctx.values, name, 'snapshot', min)
const expect = (p: string[], min: number, max: number, shape: string) =>
  expectPositionals(p, min, max, `snapshot ${shape}`, 'snapshot')

function kindFlag(ctx: CliContext): SnapshotKind | undefined {
  const v = stringFlag(ctx.values, 'kind')
  if (v === undefined) return undefined
  if (!(snapshotKinds as readonly string[]).includes(v)) {
    throw usageError('snapshot', `--kind must be one of ${snapshotKinds.join(', ')}.`)
  }
  return v as SnapshotKind
}

/**
 * Mirrors metadata into the app database when the project is registered there; the CLI works without it. SQLite
 * loads only here, for the writing actions: status, list and the other reads never need it.
 */
async function openIndex(ctx: CliContext, logger: Logger): Promise<{ index?: SnapshotIndex; close(): void }> {
  let db: Db | undefined
  try {
    const file = databaseFile(cliAppDataDir(ctx.env))
    if (!existsSync(file)) return { close() {} }
    const [{ openDatabase }, { ProjectsRepo }, { SnapshotsRepo }] = await Promise.all([
      import('../../store/database'),
      import('../../store/projectsRepo'),
      import('../../store/snapshotsRepo'),
    ])
    db = openDatabase(file)
    const project = new ProjectsRepo(db).findByPath(ctx.projectDir)
    if (!project) {
      db.close()
      return { close() {} }
    }
    const index = new SnapshotsRepo(db).indexFor(project.id)
    const opened = db
    return { index, close: () => opened.close() }
  } catch (err) {
    noteFailure(logger, 'The app database could not be opened; snapshots are not mirrored there', err)
    db?.close()
    return { close() {} }
  }
}

/**
 * The mirror, opened while the engine's git work runs (loading SQLite costs about as much as one git call): the
 * engine only calls it once a snapshot is made or removed. `start` begins opening it: called once the store is
 * open, so loading SQLite fills the wait for the first git call instead of delaying the store's checks.
 */
function openIndexMeanwhile(
  ctx: CliContext,
  logger: Logger,
): {
  index: SnapshotIndex
  start(): void
  close(): Promise<void>
} {
  let opening: ReturnType<typeof openIndex> | null = null
  const opened = () => (opening ??= openIndex(ctx, logger))
  return {
    index: {
      record: async (meta) => (await opened()).index?.record(meta),
      remove: async (tags) => (await opened()).index?.remove(tags),
    },
    start: () => void opened(),
    close: async () => {
      if (opening) (await opening).close()
    },
  }
}

function when(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19)
}

function describeSave(s: SnapshotMeta): string {
  const lines = [
    `Saved ${s.tag} (${s.commit.slice(0, 10)}) in ${s.durationMs} ms: ${s.added} added, ${s.modified} modified, ${s.deleted} deleted`,
  ]
  for (const k of s.skipped) {
    lines.push(`  skipped ${k.path}: ${k.reason === 'too-large' ? `too large (${k.size} bytes)` : k.reason}`)
  }
  return lines.join('\n') + '\n'
}

function describeRollback(r: RollbackReport, verb: string): string {
  const lines: string[] = []
  const head = r.preview
    ? `Rolling back to ${r.target} would overwrite ${r.written.length} file(s), delete ${r.deleted.length}, and leave ${r.leftAlone.length + r.skipped.length} alone. Undo brings everything back.`
    : `${verb} ${r.target}: wrote ${r.written.length} file(s), deleted ${r.deleted.length}, left ${r.leftAlone.length + r.skipped.length} alone (${r.durationMs} ms). Safety snapshot: ${r.safetyTag} ("ralph snapshot undo" reverts this).`
  lines.push(head)
  for (const w of r.written) lines.push(`  ${w.change === 'added' ? 'A' : 'M'} ${w.path}`)
  for (const d of r.deleted) lines.push(`  D ${d}`)
  for (const l of r.leftAlone) lines.push(`  = ${l.path} (left alone: ${l.reason})`)
  for (const s of r.skipped) lines.push(`  = ${s.path} (left alone: ${s.reason})`)
  // Files no rollback can bring back are said plainly, never hidden behind a success line.
  for (const n of r.neverSnapshotted) lines.push(`  ! ${n.message}`)
  return lines.join('\n') + '\n'
}

async function runAction(ctx: CliContext, action: string, p: string[]): Promise<number> {
  const mutating = MUTATING.has(action)
  // Failures a command survives go to the app's log file, as the app's own do.
  const { logger } = ctx
  const idx = mutating ? openIndexMeanwhile(ctx, logger) : undefined
  const engine = new SnapshotEngine({ projectDir: ctx.projectDir, index: idx?.index, logger })
  const out = (json: unknown, human: string): number => {
    if (ctx.json) writeJson(ctx.stdout, { ok: true, ...(json as object) })
    else ctx.stdout.write(human)
    return 0
  }
  try {
    // Only a writing action creates or repairs the store; reading one that does not exist yet finds nothing.
    const { repairs } = mutating ? await engine.open() : { repairs: [] as string[] }
    idx?.start()
    switch (action) {
      case 'save': {
        expect(p, 0, 1, 'save [MESSAGE]')
        const message = stringFlag(ctx.values, 'message') ?? p[0]
        const s = await engine.save({ kind: kindFlag(ctx) ?? 'manual', task: int(ctx, 'task', 1), message })
        return out({ snapshot: s, repairs }, describeSave(s))
      }
      case 'list': {
        expect(p, 0, 0, 'list')
        const r = await engine.list({
          limit: int(ctx, 'limit', 1),
          offset: int(ctx, 'offset'),
          kind: kindFlag(ctx),
          task: int(ctx, 'task', 1),
        })
        return out(r, describeList(r))
      }
      case 'diff': {
        expect(p, 1, 2, 'diff TARGET [AGAINST]')
        const [target, against] = p as [string, string | undefined]
        const file = stringFlag(ctx.values, 'file')
        if (file !== undefined) {
          const fd = await engine.fileDiff(target, file, against, int(ctx, 'max-bytes', 1))
          return out(fd, describeFileDiff(fd, target, against))
        }
        const d = await engine.diff(target, against)
        return out(d, describeDiff(d, target))
      }
      case 'status': {
        expect(p, 0, 0, 'status')
        // A task left `running` by a process that died is reported as interrupted (where the project is writable).
        await recoverInterruptedTask(ctx.projectDir, undefined, undefined, logger).catch(
          fallbackTo(logger, 'An interrupted task could not be looked at', false),
        )
        const s = await engine.status()
        return out(s, describeStatus(s))
      }
      case 'show': {
        expect(p, 2, 2, 'show TAG PATH')
        const s = await engine.show(p[0]!, p[1]!)
        if (ctx.json) writeJson(ctx.stdout, { ok: true, ...encodeShown(s) })
        else ctx.stdout.write(s.content)
        return 0
      }
      case 'preview':
      case 'rollback': {
        expect(p, 1, 1, `${action} TAG`)
        const preview = action === 'preview' || ctx.values.preview === true
        const tag = p[0]!
        const r = preview ? await engine.previewRollback(tag) : await engine.rollback(tag)
        return out({ report: r }, describeRollback(r, 'Rolled back to'))
      }
      case 'undo': {
        expect(p, 0, 0, 'undo')
        const r = await engine.undo()
        return out({ report: r }, describeRollback(r, `Undid the rollback to ${r.undid}; now at`))
      }
      case 'finish-rollback': {
        expect(p, 0, 0, 'finish-rollback')
        const r = await engine.finishRollback()
        return out({ report: r }, describeRollback(r, 'Finished the rollback to'))
      }
      case 'verify': {
        expect(p, 0, 0, 'verify')
        const v = await engine.verify()
        out(v, describeVerify(v))
        return v.damaged.length === 0 ? ExitCode.ok : ExitCode.taskFailed
      }
      case 'usage': {
        expect(p, 0, 0, 'usage')
        const u = await engine.usage()
        return out(
          u,
          `${(u.storeBytes / 1024 / 1024).toFixed(1)} MB in ${engine.paths.gitDir} (${u.snapshotCount} snapshots, ${u.looseObjects} loose objects, ${u.packs} packs)\n`,
        )
      }
      case 'prune': {
        expect(p, 0, 0, 'prune')
        const r = await engine.prune({
          olderThanDays: numberFlag(ctx.values, 'older-than', 'snapshot'),
          keepLast: int(ctx, 'keep'),
          dryRun: ctx.values['dry-run'] === true,
        })
        return out(r, describePrune(r))
      }
      default:
        throw usageError('snapshot', `Unknown action "${action}".`)
    }
  } finally {
    await tellRepairsAndNotice(ctx, engine, logger)
    await idx?.close()
  }
}

/** What opening the store repaired, and an interrupted rollback's notice: said after every action. */
async function tellRepairsAndNotice(ctx: CliContext, engine: SnapshotEngine, logger: Logger): Promise<void> {
  // Repairs happen on opening the store, reads included: the user hears of each one (a removed tag above all).
  if (!ctx.json) for (const r of engine.repairsMade) ctx.stderr.write(`ralph: repaired: ${r}\n`)
  // An interrupted rollback is said on every output mode: the tree was (or still is) a mix of two snapshots.
  // A finished one is said once, whichever engine finished it.
  const notice = await engine.pendingRollbackNotice()
  if (notice) {
    ctx.stderr.write(`ralph: ${notice.message}\n`)
    // A project that cannot be written keeps the notice, and the next command says it again.
    if (notice.state === 'finished') {
      await engine
        .dismissRollbackNotice()
        .catch(unlessExpected(logger, 'The rollback notice could not be dismissed', undefined, isUnwritable))
    }
  }
}

function describeList(r: ListResult): string {
  if (r.items.length === 0) return 'No snapshots yet.\n'
  return (
    r.items
      .map(
        (s) =>
          `${s.tag.padEnd(26)} ${when(s.createdAt)}  +${s.added} ~${s.modified} -${s.deleted}  ${s.message}`,
      )
      .join('\n') + `\n(${r.items.length} of ${r.total})\n`
  )
}

function describeFileDiff(fd: FileDiff, target: string, against: string | undefined): string {
  const side = (s: FileDiff['old']): string =>
    !s.exists
      ? '(absent)\n'
      : s.tooLarge
        ? `(too large to show: ${s.size} bytes)\n`
        : s.binary
          ? `(binary, ${s.size} bytes)\n`
          : (s.content ?? '')
  return `--- ${target}:${fd.path}\n${side(fd.old)}+++ ${against ?? 'working tree'}:${fd.path}\n${side(fd.new)}`
}

function describeDiff(d: DiffResult, target: string): string {
  const code = { added: 'A', modified: 'M', deleted: 'D', renamed: 'R', typechange: 'T' } as const
  return (
    d.entries.map((e) => `${code[e.status]} ${e.oldPath ? `${e.oldPath} -> ` : ''}${e.path}`).join('\n') +
    (d.entries.length ? '\n' : '') +
    `${d.counts.added} added, ${d.counts.modified} modified, ${d.counts.deleted} deleted, ${d.counts.renamed} renamed since ${target}\n`
  )
}

function describeStatus(s: StatusResult): string {
  const human = [
    `Position: ${s.position ? s.position.tag : '(none)'}`,
    `Latest:   ${s.latest ? `${s.latest.tag} at ${when(s.latest.createdAt)}` : '(no snapshots yet)'}`,
    `Changes since: ${s.dirty ? `${s.changes.added} added, ${s.changes.modified} modified, ${s.changes.deleted} deleted` : 'none'}`,
    `Files: ${s.trackedFiles}   Snapshots: ${s.snapshotCount}`,
    ...(s.rollbackNotice ? [`Rollback: ${s.rollbackNotice.message}`] : []),
  ].join('\n')
  return human + '\n'
}

function describeVerify(v: { checked: number; damaged: { tag: string }[] }): string {
  return v.damaged.length === 0
    ? `All ${v.checked} snapshot(s) are intact.\n`
    : `${v.damaged.length} of ${v.checked} snapshot(s) are damaged (objects missing): ${v.damaged
        .map((d) => d.tag)
        .join(', ')}. Roll back only to another snapshot; the damaged ones cannot be restored.\n`
}

function describePrune(r: PruneResult): string {
  return (
    `${r.dryRun ? 'Would remove' : 'Removed'} ${r.removedTags.length} snapshot(s)${r.removedTags.length ? `: ${r.removedTags.join(', ')}` : ''}\n` +
    (r.dryRun ? '' : `Store: ${r.bytesBefore} -> ${r.bytesAfter} bytes\n`)
  )
}

export const snapshotCommand: CliCommand = {
  name: 'snapshot',
  usage: USAGE,
  options,
  async run(ctx) {
    const [action, ...rest] = ctx.positionals
    if (!action || action === 'help') {
      ;(action ? ctx.stdout : ctx.stderr).write(`${USAGE}\n`)
      return action ? ExitCode.ok : ExitCode.usage
    }
    const mutating = MUTATING.has(action)
    // Read-only actions work on a read-only project and never create .ralph/ (DESIGN.md §5).
    const projectDir = checkProjectFolder(ctx.projectDir, { write: mutating })
    return runAction({ ...ctx, projectDir }, action, rest)
  },
}
