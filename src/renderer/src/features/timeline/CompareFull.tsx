import * as RadixDialog from '@radix-ui/react-dialog'
import { X } from 'lucide-react'
import { IconButton } from '../../ui'
import { Compare } from './Compare'
import { sideLabel, type CompareRange } from './compareRange'
import { useTimelineUi } from './timelineUi'
import './compareFull.css'

/**
 * Compare full size: a large dialog (about 90 % of the window) over the project page, the changed files beside
 * the diff, inline or side by side (remembered). Esc or Close returns to the side panel's Compare, same range.
 */
export function CompareFull({ projectId, range }: { projectId: number; range: CompareRange }) {
  const open = useTimelineUi((s) => s.fullSize)
  const setFullSize = useTimelineUi((s) => s.setFullSize)
  return (
    <RadixDialog.Root open={open} onOpenChange={setFullSize}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="overlay" />
        <RadixDialog.Content
          className="dialog compare-full"
          aria-describedby={undefined}
          tabIndex={-1}
          // Focus the dialog itself, not Close (whose tooltip would pop up over the title); Tab reaches the rest.
          onOpenAutoFocus={(e) => {
            e.preventDefault()
            ;(e.currentTarget as HTMLElement).focus()
          }}
        >
          <header className="dialog-header compare-full-header">
            <RadixDialog.Title className="dialog-title">
              Compare {sideLabel(range.from)} → {sideLabel(range.to)}
            </RadixDialog.Title>
            <RadixDialog.Close asChild>
              <IconButton label="Close" shortcut="Esc" icon={<X size={16} />} size="sm" />
            </RadixDialog.Close>
          </header>
          {open ? <Compare projectId={projectId} range={range} full /> : null}
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  )
}
