import { Undo2 } from 'lucide-react'
import { useRef, useState } from 'react'
import type { RollbackReportDto, SnapshotMetaDto } from '../../../../shared/api/snapshots'
import { tagWords } from '../../../../shared/snapshotTags'
import type { Client } from '../../api'
import { fallbackTo } from '../../app/failures'
import { errorMessage } from '../../app/queries'
import { ActionButton, toast } from '../../ui'
import { splitOwn } from '../../../../shared/ralphFiles'

export { tagWords }

/** "14:02" (today) or "26 Nov, 14:02": when a snapshot was taken, short. */
export function clockTime(ms: number, now = Date.now()): string {
  const at = new Date(ms)
  const time = at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
  return new Date(now).toDateString() === at.toDateString()
    ? time
    : `${at.toLocaleDateString([], { day: 'numeric', month: 'short' })}, ${time}`
}

/** The safety snapshot as the Undo names it: "safety snapshot 14:02" (its tag when it cannot be read). */
export function safetyWords(safetyTag: string, meta: SnapshotMetaDto | null): string {
  return meta ? `safety snapshot ${clockTime(meta.createdAt)}` : `safety snapshot ${safetyTag}`
}

/** What Undo returns to: "the files as they were before rolling back to before Task 3 (safety snapshot 14:02)". */
export function undoTargetWords(
  rolledBackTo: string,
  safetyTag: string,
  meta: SnapshotMetaDto | null,
): string {
  return `the files as they were before rolling back to ${tagWords(rolledBackTo)} (${safetyWords(safetyTag, meta)})`
}

/** One snapshot's record, read from the timeline's list (null when it cannot be read: the words use its tag). */
export async function snapshotMeta(
  client: Client,
  projectId: number,
  tag: string,
): Promise<SnapshotMetaDto | null> {
  const page = await client
    .call('snapshots.list', { projectId, search: tag, limit: 50 })
    .catch(fallbackTo(`the snapshot ${tag} could not be read; the message names it by its tag.`, null))
  return page?.items.find((s) => s.tag === tag) ?? null
}

/** The files a rollback or undo changed. */
const changedCount = (r: RollbackReportDto): number => r.written.length + r.deleted.length

/** "2 files changed" (the user's), "and 3 of Ralph's own" apart: counts show the user's files first. */
export function changedWords(r: RollbackReportDto): string {
  const { user, ralph } = splitOwn([...r.written.map((w) => w.path), ...r.deleted], (p) => p)
  const own = ralph.length ? ` (and ${ralph.length} of Ralph’s own)` : ''
  return user.length === 0
    ? `None of your files changed${own}.`
    : `${user.length} of your files changed${own}.`
}

/**
 * The toast after a rollback (DESIGN.md §15: a toast with `button` "Undo"). It names the safety snapshot Undo
 * returns to; a rollback that changed nothing offers no Undo (there is nothing to go back to) and says so.
 */
export async function showRollbackToast(client: Client, projectId: number, report: RollbackReportDto) {
  const changed = changedCount(report)
  const title = `Rolled back to ${report.target}`
  if (changed === 0 || report.safetyTag === null) {
    toast.success(title, {
      description: `Nothing changed: the folder already matched ${tagWords(report.target)}, so there is nothing to undo.`,
    })
    return
  }
  const safetyTag = report.safetyTag
  const meta = await snapshotMeta(client, projectId, safetyTag)
  const back = undoTargetWords(report.target, safetyTag, meta)
  const id = toast.success(title, {
    description: `${changedWords(report)} Undo: back to ${back}.`,
    duration: 30_000,
    action: (
      <UndoButton
        client={client}
        projectId={projectId}
        title={`Back to ${back}`}
        onDone={() => toast.dismiss(id)}
      />
    ),
  })
}

/**
 * The toast's Undo: one click, one undo (ActionButton), and only one ever: once used it stays disabled, for a
 * second undo would undo the undo. Its result names the snapshot it actually returned to.
 */
function UndoButton({
  client,
  projectId,
  title,
  onDone,
}: {
  client: Client
  projectId: number
  title: string
  onDone(): void
}) {
  const [spent, setSpent] = useState(false)
  const used = useRef(false)
  return (
    <ActionButton
      size="sm"
      variant="primary"
      className="toast-undo"
      icon={<Undo2 size={13} aria-hidden />}
      title={title}
      disabledReason={spent ? 'Undone.' : null}
      onAction={() => {
        if (used.current) return
        used.current = true
        setSpent(true)
        return runUndo(client, projectId).finally(onDone)
      }}
    >
      Undo
    </ActionButton>
  )
}

/** Runs the undo and says where the files are now, naming the safety snapshot the core returned to. */
export async function runUndo(client: Client, projectId: number): Promise<void> {
  let undone: Awaited<ReturnType<typeof undo>>
  try {
    undone = await undo(client, projectId)
  } catch (err) {
    toast.error(`Undo failed: ${errorMessage(err)}`)
    return
  }
  const meta = await snapshotMeta(client, projectId, undone.target)
  const back = undoTargetWords(undone.undid, undone.target, meta)
  const changed = changedCount(undone)
  if (changed === 0)
    toast.success(`Undo changed nothing: the files already matched ${safetyWords(undone.target, meta)}`, {
      description: `That snapshot holds ${back}.`,
    })
  else
    toast.success(`Undo: back to ${back}`, {
      description: changedWords(undone),
    })
}

const undo = (client: Client, projectId: number) => client.call('snapshots.undo', { projectId })
