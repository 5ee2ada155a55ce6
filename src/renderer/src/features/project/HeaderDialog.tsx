import { useState, type ReactNode } from 'react'
import { Dialog, DialogContent, DialogTrigger, IconButton } from '../../ui'

/**
 * A project-header button that opens a dialog (Rules files, MCP servers, Project details): the chat keeps its
 * height, and the dialog's content is rendered (and so looked up) only while it is open.
 */
export function HeaderDialog({
  icon,
  title,
  label = title,
  description,
  compact = false,
  describedBy,
  children,
}: {
  icon: ReactNode
  /** The dialog's title (and the button's label unless `label` says otherwise). */
  title: string
  label?: string
  description: string
  /** The icon alone, its label the button's accessible name and tooltip. */
  compact?: boolean
  /** The id of what describes the button, if anything. */
  describedBy?: string
  /** The content, rendered only while the dialog is open. */
  children: () => ReactNode
}) {
  const [open, setOpen] = useState(false)
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        {compact ? (
          <IconButton label={label} icon={icon} size="sm" aria-describedby={describedBy} />
        ) : (
          <button type="button" className="btn btn-ghost" aria-describedby={describedBy}>
            {icon}
            {label}
          </button>
        )}
      </DialogTrigger>
      <DialogContent title={title} description={description}>
        {open ? children() : null}
      </DialogContent>
    </Dialog>
  )
}
