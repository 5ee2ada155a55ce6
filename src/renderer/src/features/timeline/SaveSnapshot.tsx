import * as RadixDialog from '@radix-ui/react-dialog'
import { Loader2, Save } from 'lucide-react'
import { useState } from 'react'
import { errorMessage } from '../../app/queries'
import { Banner, Button, toast, useSingleFlight } from '../../ui'
import { useSaveSnapshot } from './queries'
import { changeWords, plural, RALPH_MARK, splitCounts } from './rows'

/** The longest name a snapshot takes here (the core keeps the message on one line of the store's commit). */
const NAME_LIMIT = 200

/**
 * "Save snapshot": asks for an optional name (the snapshot's message: the timeline shows it and the search finds
 * it) in a small dialog; Enter saves, Esc cancels. One save per submit, however often Enter or the button is hit.
 */
export function SaveSnapshotButton({ projectId }: { projectId: number }) {
  const [open, setOpen] = useState(false)
  const [name, setName] = useState('')
  const save = useSaveSnapshot(projectId)
  const { run, busy } = useSingleFlight(async () => {
    const message = name.trim().replace(/\s+/g, ' ')
    const s = await save.mutateAsync(message || undefined)
    setOpen(false)
    setName('')
    save.reset()
    // The user's files; Ralph's own (.ralph/) counted apart, as the timeline's rows do.
    const { user, ralphTotal } = splitCounts(s)
    toast.success(`Saved ${message ? `“${message}” as ` : ''}${s.tag}`, {
      description:
        changeWords(user) +
        `${ralphTotal ? ` · ${RALPH_MARK}` : ''}` +
        `${s.skippedTotal ? `, ${plural(s.skippedTotal, 'file')} skipped` : ''}`,
    })
  })
  const close = (next: boolean) => {
    if (busy) return
    setOpen(next)
    if (next) return
    // Cancelled: the next Save snapshot starts without this name.
    setName('')
    save.reset()
  }
  return (
    <RadixDialog.Root open={open} onOpenChange={close}>
      <RadixDialog.Trigger asChild>
        <Button
          size="sm"
          variant="primary"
          className="timeline-save"
          icon={busy ? <Loader2 size={13} className="spin" aria-hidden /> : <Save size={13} aria-hidden />}
          aria-label="Save snapshot"
          title="Save snapshot: keep the folder as it is now, with a name if you like"
        >
          <span className="timeline-save-label">Save snapshot</span>
        </Button>
      </RadixDialog.Trigger>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="overlay" />
        <RadixDialog.Content className="dialog save-snapshot-dialog">
          <RadixDialog.Title className="dialog-title">Save a snapshot</RadixDialog.Title>
          <RadixDialog.Description className="dialog-description">
            Keeps the folder as it is now. A name helps you find it in the timeline later.
          </RadixDialog.Description>
          <form
            className="save-snapshot-form"
            onSubmit={(e) => {
              e.preventDefault()
              void run()
            }}
          >
            <label className="save-snapshot-label">
              Name (optional)
              <input
                type="text"
                value={name}
                maxLength={NAME_LIMIT}
                placeholder="e.g. Before trying the new layout"
                autoFocus
                disabled={busy}
                onChange={(e) => setName(e.target.value)}
              />
            </label>
            {save.error ? (
              <Banner tone="error">Could not save a snapshot: {errorMessage(save.error)}</Banner>
            ) : null}
            <p className="muted save-snapshot-keys">Enter saves, Esc cancels.</p>
            <div className="dialog-actions">
              <RadixDialog.Close asChild>
                <Button disabledReason={busy ? 'Saving: it takes a moment.' : null}>Cancel</Button>
              </RadixDialog.Close>
              <Button
                type="submit"
                variant="primary"
                disabled={busy}
                aria-busy={busy || undefined}
                icon={busy ? <Loader2 size={13} className="spin" aria-hidden /> : undefined}
              >
                Save
              </Button>
            </div>
          </form>
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  )
}
