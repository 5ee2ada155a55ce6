import { ShieldAlert } from 'lucide-react'
import { useState } from 'react'
import type { RepoTrust } from '../../../../shared/api/userGit'
import { errorMessage } from '../../app/queries'
import { ActionButton, Banner, Button, Dialog, DialogClose, DialogContent, toast } from '../../ui'
import { useTrustRepo } from './queries'
import { whileNotPending } from './dialogOpen'
import './userGit.css'

/** What git would run from the repository's own config and hooks, one line each: the setting (or hook) and its command. */
export function WouldRun({ trust }: { trust: RepoTrust }) {
  if (trust.wouldRun.length === 0) {
    return (
      <p className="muted trust-none">
        It names no program git would run (its config or hooks changed all the same).
      </p>
    )
  }
  return (
    <ul className="trust-would-run" aria-label="What it would run">
      {trust.wouldRun.map((w, i) => (
        <li key={`${w.what}-${i}`} aria-label={`${w.what}: ${w.command}`}>
          <span className="trust-what">{w.what}</span>
          <code>{w.command}</code>
        </li>
      ))}
    </ul>
  )
}

/**
 * The header's warning for a repository a task created, or whose config or hooks changed during a task: the words
 * for it, and a dialog that lists what it would run and lets the user trust it (recorded in the app's database).
 */
export function UntrustedRepo({ projectId, trust }: { projectId: number; trust: RepoTrust }) {
  const [open, setOpen] = useState(false)
  const confirm = useTrustRepo(projectId)
  return (
    <>
      <button
        type="button"
        className="user-git-untrusted"
        title={`${trust.message} Ralph runs none of its hooks, filters or other programs.`}
        onClick={() => setOpen(true)}
      >
        <ShieldAlert size={12} aria-hidden />
        Untrusted
      </button>
      <Dialog open={open} onOpenChange={whileNotPending(confirm, setOpen)}>
        <DialogContent title="Untrusted git repository" description={trust.message ?? ''}>
          <div className="commit-dialog-body" data-testid="trust-dialog">
            <section className="commit-section">
              <h3>What it would run</h3>
              <WouldRun trust={trust} />
            </section>
            <p className="trust-note">
              Ralph runs none of these: reading your repository turns them all off, and Commit to my git asks
              you first. Trust this repository only if you know every command above: from then on a commit
              runs its hooks and filters as git does.
            </p>
            {confirm.error ? <Banner tone="error">{errorMessage(confirm.error)}</Banner> : null}
            <div className="dialog-actions">
              <DialogClose asChild>
                <Button disabled={confirm.isPending}>Cancel</Button>
              </DialogClose>
              <ActionButton
                variant="danger"
                disabled={confirm.isPending}
                onAction={async () => {
                  await confirm.mutateAsync(trust.fingerprint)
                  toast.success('Repository trusted', { description: 'Its hooks run at your next commit.' })
                  setOpen(false)
                }}
              >
                Trust this repository
              </ActionButton>
            </div>
          </div>
        </DialogContent>
      </Dialog>
    </>
  )
}
