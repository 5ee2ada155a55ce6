import { Loader2 } from 'lucide-react'
import { useState } from 'react'
import type { CommitPlan, FlaggedFile } from '../../../../shared/api/userGit'
import { errorMessage } from '../../app/queries'
import { Banner, Button, Dialog, DialogClose, DialogContent, toast, useSingleFlight } from '../../ui'
import { useCommitPreview, useCommitTask } from './queries'
import { WouldRun } from './TrustRepo'
import { whileNotPending } from './dialogOpen'
import './userGit.css'

const SHOWN = 200
const statusLetter = { added: 'A', modified: 'M', deleted: 'D' } as const

/** The message the dialog starts with: the task's title, a blank line, its summary. */
export function initialMessage(title: string | null, summary: string | null, task: number): string {
  const subject = (title ?? '').trim() || `Task ${task}`
  const body = (summary ?? '').trim()
  return body ? `${subject}\n\n${body}\n` : `${subject}\n`
}

/**
 * What stays out of the commit: Ralph's own files (`.ralph/`) in a collapsed group of their own, never counted with
 * the user's files, then what the user's git ignores.
 */
function LeftOut({ plan }: { plan: CommitPlan }) {
  const ralph = plan.leftOut.filter((f) => f.reason === 'ralph-state').map((f) => f.path)
  const ignored = plan.leftOut.filter((f) => f.reason === 'ignored').map((f) => f.path)
  if (ralph.length === 0 && ignored.length === 0) return null
  return (
    <>
      {ralph.length > 0 ? (
        <details className="commit-ralph-files" data-testid="commit-ralph-files">
          <summary title="Ralph’s own state in the project’s .ralph/ folder: never committed to your git, and not counted with your files">
            Ralph’s own files <span className="muted">({ralph.length}, not committed)</span>
          </summary>
          <ul className="commit-files" aria-label="Ralph’s own files">
            {ralph.slice(0, SHOWN).map((path) => (
              <li key={path}>
                <code>{path}</code>
              </li>
            ))}
            {ralph.length > SHOWN ? <li className="muted">… and {ralph.length - SHOWN} more</li> : null}
          </ul>
        </details>
      ) : null}
      {ignored.length > 0 ? (
        <p className="commit-left-out" data-testid="commit-left-out">
          Left out, ignored by your git: <code>{ignored.slice(0, 5).join(', ')}</code>
          {ignored.length > 5 ? ` and ${ignored.length - 5} more` : null}.
        </p>
      ) : null}
    </>
  )
}

/** The files a check refused, each with why and its own "Commit anyway" box (the core checks again at commit). */
function Flagged({
  flagged,
  allowed,
  onToggle,
  disabled,
}: {
  flagged: FlaggedFile[]
  allowed: ReadonlySet<string>
  onToggle(path: string, on: boolean): void
  disabled: boolean
}) {
  const byPath = new Map<string, FlaggedFile[]>()
  for (const f of flagged) byPath.set(f.path, [...(byPath.get(f.path) ?? []), f])
  return (
    <section className="commit-section" aria-label="Refused files">
      <h3>
        Refused files <span className="muted">({byPath.size})</span>
      </h3>
      <p className="trust-note">
        Verification would not let these into your repository. Each stays out of the commit unless you tick
        it.
      </p>
      <ul className="commit-flagged">
        {[...byPath].map(([path, why]) => (
          <li key={path}>
            <label className="commit-check">
              <input
                type="checkbox"
                checked={allowed.has(path)}
                disabled={disabled}
                onChange={(e) => onToggle(path, e.target.checked)}
              />
              <span>
                Commit <code>{path}</code> anyway
              </span>
            </label>
            <ul className="commit-flagged-why">
              {why.map((w, i) => (
                <li key={i}>{w.reason === 'secret' ? `Secret: ${w.detail}` : `Blocked path: ${w.detail}`}</li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </section>
  )
}

/** Refusals the dialog itself lets the user answer (a box per flagged file, the untrusted confirmation). */
const ANSWERABLE = new Set(['flagged', 'untrusted'])

interface DialogProps {
  projectId: number
  task: number
  title: string | null
  summary: string | null
  open: boolean
  onOpenChange(open: boolean): void
}

/**
 * "Commit to my git" for one completed task: the files the commit will hold, an editable message, and Commit;
 * a refusal (a merge in progress, unrelated staged changes …) is shown here with what to do, and Commit is then
 * disabled with the same reason.
 */
export function CommitDialog(props: DialogProps) {
  const { projectId, task, open, onOpenChange } = props
  const commit = useCommitTask(projectId)
  const preview = useCommitPreview(projectId, open ? task : null)
  const branch = preview.data?.branch
  return (
    <Dialog open={open} onOpenChange={whileNotPending(commit, onOpenChange)}>
      <DialogContent
        title="Commit to my git"
        description={
          branch
            ? `One commit of task ${task}’s changed files, as they are on disk, on your branch ${branch}. Your other changes stay as they are, and nothing is pushed.`
            : `One commit of task ${task}’s changed files on your current branch. Your other changes stay as they are, and nothing is pushed.`
        }
      >
        {/* Mounted while open only, so each opening starts from the task's own words. */}
        <CommitForm {...props} commit={commit} preview={preview} />
      </DialogContent>
    </Dialog>
  )
}

function CommitForm({
  task,
  title,
  summary,
  onOpenChange,
  commit,
  preview,
}: DialogProps & {
  commit: ReturnType<typeof useCommitTask>
  preview: ReturnType<typeof useCommitPreview>
}) {
  const [message, setMessage] = useState(() => initialMessage(title, summary, task))
  const [allowed, setAllowed] = useState<ReadonlySet<string>>(() => new Set())
  const [confirmed, setConfirmed] = useState(false)
  const plan = preview.data
  const refusal = plan?.refusal && !ANSWERABLE.has(plan.refusal.code) ? plan.refusal.message : null
  const failed = commit.error ? errorMessage(commit.error) : null
  const trust = plan?.trust ?? null
  const untrusted = trust !== null && !trust.trusted
  const refusedFiles = new Set((plan?.flagged ?? []).map((f) => f.path).filter((p) => !allowed.has(p)))
  const reason = !plan
    ? 'Reading your repository…'
    : refusal
      ? refusal
      : refusedFiles.size > 0
        ? `Tick “Commit anyway” for ${refusedFiles.size === 1 ? 'the refused file' : `each of the ${refusedFiles.size} refused files`} first, or commit yourself without ${refusedFiles.size === 1 ? 'it' : 'them'}.`
        : untrusted && !confirmed
          ? 'Confirm first that the commit runs none of this repository’s programs.'
          : message.trim() === ''
            ? 'Write a commit message first.'
            : null

  // One commit per click, however fast the clicks or Ctrl+Enter presses come: the flight holds until it settles.
  const flight = useSingleFlight(async () => {
    if (reason || commit.isPending) return
    const result = await commit.mutateAsync({
      task,
      message,
      ...(allowed.size > 0 ? { allow: [...allowed] } : {}),
      ...(untrusted && trust ? { untrustedConfirmed: trust.fingerprint } : {}),
    })
    toast.success(`Committed ${result.hash} to ${result.branch}`, {
      description: `${result.files.length} file${result.files.length === 1 ? '' : 's'} from task ${task}. Nothing was pushed.`,
    })
    commit.reset()
    onOpenChange(false)
  })
  const submit = () => void flight.run()

  return (
    <div className="commit-dialog-body" data-testid="commit-dialog">
      {preview.isPending ? (
        <p className="commit-progress muted" role="status">
          <Loader2 size={14} className="spin" aria-hidden /> Reading your repository…
        </p>
      ) : preview.error ? (
        <Banner tone="error">{errorMessage(preview.error)}</Banner>
      ) : plan ? (
        <>
          {plan.files.length > 0 ? (
            <section className="commit-section">
              <h3>
                Files to commit <span className="muted">({plan.files.length})</span>
              </h3>
              <ul className="commit-files" aria-label="Files to commit">
                {plan.files.slice(0, SHOWN).map((f) => (
                  <li key={f.path} aria-label={`${f.path}, ${f.status}`}>
                    <span className={`commit-file-status ${f.status}`} aria-hidden>
                      {statusLetter[f.status]}
                    </span>
                    <code>{f.path}</code>
                  </li>
                ))}
                {plan.files.length > SHOWN ? (
                  <li className="muted">… and {plan.files.length - SHOWN} more</li>
                ) : null}
              </ul>
            </section>
          ) : null}
          <LeftOut plan={plan} />
          {plan.flagged.length > 0 ? (
            <Flagged
              flagged={plan.flagged}
              allowed={allowed}
              disabled={commit.isPending}
              onToggle={(path, on) =>
                setAllowed((prev) => {
                  const next = new Set(prev)
                  if (on) next.add(path)
                  else next.delete(path)
                  return next
                })
              }
            />
          ) : null}
          {untrusted && trust ? (
            <Banner tone="warn" className="commit-untrusted" data-testid="commit-untrusted">
              <strong>{trust.message}</strong>
              <span>
                Committing as git normally does would run what its config and hooks name. Ralph runs none of
                it:
              </span>
              <WouldRun trust={trust} />
              <label className="commit-check">
                <input
                  type="checkbox"
                  checked={confirmed}
                  disabled={commit.isPending}
                  onChange={(e) => setConfirmed(e.target.checked)}
                />
                <span>Commit without running any of these (no hooks, filters or other programs)</span>
              </label>
            </Banner>
          ) : null}
        </>
      ) : null}
      {refusal || failed ? (
        <Banner tone="warn" role="alert" className="commit-refusal" data-testid="commit-refusal">
          {failed ?? refusal}
        </Banner>
      ) : null}
      <div className="field">
        <label htmlFor={`commit-message-${task}`}>Commit message</label>
        <textarea
          id={`commit-message-${task}`}
          className="commit-message"
          value={message}
          // The message is what the user comes to change: it has the focus, not the dialog's close button.
          autoFocus
          spellCheck
          disabled={commit.isPending}
          onChange={(e) => setMessage(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
              e.preventDefault()
              submit()
            }
          }}
        />
      </div>
      <div className="dialog-actions">
        {commit.isPending ? (
          <p className="commit-progress" role="status">
            <Loader2 size={14} className="spin" aria-hidden /> Committing…
          </p>
        ) : null}
        <DialogClose asChild>
          <Button disabled={commit.isPending}>Cancel</Button>
        </DialogClose>
        <Button
          variant="primary"
          disabledReason={reason}
          disabled={commit.isPending || flight.busy}
          aria-busy={flight.busy || undefined}
          onClick={submit}
        >
          Commit
        </Button>
      </div>
    </div>
  )
}
