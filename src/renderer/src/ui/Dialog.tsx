import * as RadixDialog from '@radix-ui/react-dialog'
import { X } from 'lucide-react'
import type { ReactNode } from 'react'
import { Button, IconButton, type ButtonProps } from './Button'

export const Dialog = RadixDialog.Root
export const DialogTrigger = RadixDialog.Trigger
export const DialogClose = RadixDialog.Close

/** A modal with a title, an optional description and a close button; Esc and the overlay close it too. */
export function DialogContent({
  title,
  description,
  children,
}: {
  title: string
  description?: ReactNode
  children?: ReactNode
}) {
  return (
    <RadixDialog.Portal>
      <RadixDialog.Overlay className="overlay" />
      {/* Without a description Radix wants aria-describedby set to undefined explicitly. */}
      <RadixDialog.Content className="dialog" {...(description ? {} : { 'aria-describedby': undefined })}>
        <header className="dialog-header">
          <RadixDialog.Title className="dialog-title">{title}</RadixDialog.Title>
          <RadixDialog.Close asChild>
            <IconButton label="Close" icon={<X size={16} />} size="sm" />
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
