import * as RadixDialog from '@radix-ui/react-dialog'
import { X } from 'lucide-react'
import { useState, type ReactNode } from 'react'
import { Button, type ButtonProps } from './Button'
import { dialogFocus } from './focusReturn'

export const Dialog = RadixDialog.Root
export const DialogTrigger = RadixDialog.Trigger
export const DialogClose = RadixDialog.Close

/**
 * A modal with a title, an optional description and a close button; Esc and the overlay close it too. It opens on
 * its first field (or button), not on the ✕, and gives focus back to its opener when it closes.
 */
export function DialogContent({
  title,
  description,
  children,
}: {
  title: string
  description?: ReactNode
  children?: ReactNode
}) {
  const [focus] = useState(() => dialogFocus({ startOnFirstControl: true }))
  return (
    <RadixDialog.Portal>
      <RadixDialog.Overlay className="overlay" />
      {/* Without a description Radix wants aria-describedby set to undefined explicitly. */}
      <RadixDialog.Content
        className="dialog"
        {...focus}
        {...(description ? {} : { 'aria-describedby': undefined })}
      >
        <header className="dialog-header">
          <RadixDialog.Title className="dialog-title">{title}</RadixDialog.Title>
          {/* No tooltip: a tooltip open on it would take the first Esc for itself. */}
          <RadixDialog.Close asChild>
            <Button
              variant="ghost"
              size="sm"
              aria-label="Close"
              title="Close (Esc)"
              data-skip-autofocus
              icon={<X size={16} aria-hidden />}
            />
          </RadixDialog.Close>
        </header>
        {description ? (
          <RadixDialog.Description className="dialog-description">{description}</RadixDialog.Description>
        ) : null}
        {children}
      </RadixDialog.Content>
    </RadixDialog.Portal>
  )
}

/** A dialog form's footer: Cancel (closes the dialog) and the form's submit button, blocked while `disabledReason`. */
export function DialogFormActions({
  variant,
  disabledReason,
  children,
}: {
  variant: ButtonProps['variant']
  disabledReason: string | null
  children: ReactNode
}) {
  return (
    <div className="dialog-actions">
      <DialogClose asChild>
        <Button>Cancel</Button>
      </DialogClose>
      <Button type="submit" variant={variant} disabledReason={disabledReason}>
        {children}
      </Button>
    </div>
  )
}
