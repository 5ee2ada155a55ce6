import { realpath } from 'node:fs/promises'
import { z } from 'zod'
import { AppError } from '../../shared/errors'
import { type SkippedFile, type SnapshotMeta, snapshotTags } from '../snapshots'
import { defineTool } from './defineTool'
import { captureHarnessFiles, PLAN_FILE, restoreHarnessFiles, SUMMARY_FILE } from './ralphFiles'
import { plural } from './text'
import { errorResult, okResult, type RunContext, type ToolResult } from './types'

export const SNAPSHOT_LIST_LIMIT = 20
const MAX_PATHS_SHOWN = 100

const schema = z.strictObject({
  action: z
    .enum(['save', 'list', 'diff', 'status', 'rollback'])
    .describe(
      'save: checkpoint the whole project now (a manual-<time> tag). list: the 20 most recent snapshots. ' +
        'diff: which files changed since a snapshot (file level). status: current position and pending changes. ' +
        'rollback: restore the project files to a snapshot (a safety snapshot is taken first; the loop state ' +
        'in .ralph/ is kept).',
    ),
  message: z.string().optional().describe('For save: a short note on what this checkpoint holds.'),
  target: z
    .string()
    .optional()
    .describe(
      'Snapshot tag, e.g. "task-3-pre" or "manual-1700000000". Required for rollback; for diff it defaults to ' +
        "the current task's pre-task snapshot.",
    ),
})
export type SnapshotArgs = z.infer<typeof schema>

const when = (ms: number): string => `${new Date(ms).toISOString().replace('T', ' ').slice(0, 19)} UTC`
const counts = (m: { added: number; modified: number; deleted: number }): string =>
  `+${m.added} ~${m.modified} -${m.deleted}`

function listPaths(title: string, paths: string[]): string[] {
  if (paths.length === 0) return []
  const shown = paths.slice(0, MAX_PATHS_SHOWN).map((p) => `  ${p}`)
  if (paths.length > MAX_PATHS_SHOWN) shown.push(`  … and ${paths.length - MAX_PATHS_SHOWN} more`)
  return [`${title}:`, ...shown]
}

function skippedNote(skipped: SkippedFile[], total: number): string[] {
  if (total === 0) return []
  const items = skipped.slice(0, 10).map((s) => `${s.path} (${s.reason})`)
  return [`Not in the snapshot (${total}): ${items.join(', ')}${total > items.length ? ', …' : ''}`]
}

function describe(m: SnapshotMeta): string {
  return `${m.tag}  ${when(m.createdAt)}  ${counts(m)}${m.message ? `  ${m.message}` : ''}`
}

/**
 * Loop state survives a model's rollback: the harness, not the restored tree, decides phase, status, progress and
 * notifications. Only the model's plan and summary go back with the tree.
 */
const ROLLED_BACK_RALPH_FILES = [PLAN_FILE, SUMMARY_FILE]

export async function snapshotTool(args: SnapshotArgs, ctx: RunContext): Promise<ToolResult> {
  try {
    return await run(args, ctx)
  } catch (err) {
    // Unknown tags, a busy lock, a git failure: the model reads the reason and adapts.
    if (err instanceof AppError) return errorResult(`snapshot ${args.action} failed: ${err.message}`)
    throw err
  }
}

async function run(args: SnapshotArgs, ctx: RunContext): Promise<ToolResult> {
  const engine = ctx.snapshots
  switch (args.action) {
    case 'save': {
      const s = await engine.save({ kind: 'manual', task: ctx.taskNumber, message: args.message ?? '' })
      return okResult(
        [
          `Saved snapshot ${s.tag} (commit ${s.commit.slice(0, 7)}): ${counts(s)} files since the previous snapshot.`,
          ...skippedNote(s.skipped, s.skippedTotal),
          `Roll back to it later with snapshot {action: "rollback", target: "${s.tag}"}.`,
        ].join('\n'),
      )
    }
    case 'list': {
      const { items, total } = await engine.list({ limit: SNAPSHOT_LIST_LIMIT })
      if (total === 0) return okResult('There are no snapshots yet.')
      const head =
        total > items.length
          ? `The ${items.length} most recent of ${total} snapshots (newest first; +added ~modified -deleted):`
          : `${plural(total, 'snapshot')} (newest first; +added ~modified -deleted):`
      return okResult([head, ...items.map(describe)].join('\n'))
    }
    case 'status': {
      const s = await engine.status()
      const lines = [
        `Current position: ${s.position ? describe(s.position) : 'none (no snapshot restored or saved yet)'}`,
        s.dirty
          ? `Changes since then: ${s.changes.added} added, ${s.changes.modified} modified, ${s.changes.deleted} deleted.`
          : 'No changes since then.',
        `Last snapshot: ${s.latest ? `${s.latest.tag} at ${when(s.latest.createdAt)}` : 'none'}`,
        `Snapshots: ${s.snapshotCount}; tracked files: ${s.trackedFiles}.`,
      ]
      return okResult(lines.join('\n'))
    }
    case 'diff': {
      const target = args.target ?? snapshotTags.taskPre(ctx.taskNumber)
      const d = await engine.diff(target)
      if (d.entries.length === 0) return okResult(`No file changes since ${target}.`)
      const lines = d.entries.map((e) =>
        e.status === 'renamed' ? `R ${e.oldPath} -> ${e.path}` : `${e.status[0]!.toUpperCase()} ${e.path}`,
      )
      const shown = lines.slice(0, MAX_PATHS_SHOWN * 2)
      if (lines.length > shown.length) shown.push(`… and ${lines.length - shown.length} more`)
      const c = d.counts
      return okResult(
        [
          `Changes from ${target} to now: ${c.added} added, ${c.modified} modified, ${c.deleted} deleted, ${c.renamed} renamed ` +
            '(A added, M modified, D deleted, R renamed, T type changed; file level only — use read_file for content).',
          ...shown,
        ].join('\n'),
      )
    }
    case 'rollback': {
      if (!args.target) {
        return errorResult(
          `snapshot rollback needs a target tag, e.g. {action: "rollback", target: "${snapshotTags.taskPre(ctx.taskNumber)}"}. ` +
            'Use {action: "list"} to see the tags.',
        )
      }
      const root = await realpath(ctx.projectDir)
      const kept = await captureHarnessFiles(root, undefined, ROLLED_BACK_RALPH_FILES)
      const r = await engine.rollback(args.target)
      const restored = new Set(await restoreHarnessFiles(root, kept))
      const written = r.written.map((w) => w.path).filter((p) => !restored.has(p))
      const deleted = r.deleted.filter((p) => !restored.has(p))
      const lines = [
        `Rolled back to ${r.target}: ${written.length} file(s) written, ${deleted.length} deleted.`,
        `A safety snapshot ${r.safetyTag} was taken first: roll back to it to undo this.`,
        'The loop state in .ralph/ (status, task, feedback, progress, phase, counters, config, notifications) was kept as it was; only plan.tsx and summary.md went back.',
        ...listPaths('Written', written),
        ...listPaths('Deleted', deleted),
        ...listPaths(
          'Left alone',
          r.leftAlone.map((l) => `${l.path} (${l.reason})`),
        ),
        ...r.neverSnapshotted.map((n) => n.message),
      ]
      return okResult(lines.join('\n'), { changedFiles: [...written, ...deleted] })
    }
  }
}

export const snapshot = defineTool({
  name: 'snapshot',
  description:
    'Project snapshots (checkpoints): save one, list them, see which files changed since one, see the current ' +
    'status, or roll the project back to one.',
  schema,
  readOnly: false,
  run: snapshotTool,
})
