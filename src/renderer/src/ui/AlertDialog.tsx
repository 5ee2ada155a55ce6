import * as RadixAlertDialog from '@radix-ui/react-alert-dialog'
import { useState, type ReactNode } from 'react'
import { Button } from './Button'
import { dialogFocus } from './focusReturn'
import { useSingleFlight } from './useSingleFlight'

/**
 * A confirmation for something that cannot be taken back by accident: focus starts on Cancel, Esc cancels, and
 * the overlay does not dismiss it. Focus goes back to the opener (or its successor) when it closes. Confirm acts once: return the call's promise from onConfirm and a second click
 * before it settles does nothing.
 */
export function ConfirmDialog({
  open,
  onOpenChange,
  title,
  description,
  confirmLabel,
  cancelLabel = 'Cancel',
  tone = 'danger',
  onConfirm,
  children,
}: {
  open: boolean
  onOpenChange(open: boolean): void
  title: string
  description: ReactNode
  confirmLabel: string
  cancelLabel?: string
  tone?: 'danger' | 'primary'
  onConfirm(): unknown
  children?: ReactNode
}) {
  const confirm = useSingleFlight(onConfirm)
  // Radix starts on Cancel itself; these only remember the opener and give focus back to it.
  const [focus] = useState(() => dialogFocus({ startOnFirstControl: false }))
  return (
    <RadixAlertDialog.Root open={open} onOpenChange={onOpenChange}>
      <RadixAlertDialog.Portal>
        <RadixAlertDialog.Overlay className="overlay" />
        <RadixAlertDialog.Content className="dialog" {...focus}>
          <RadixAlertDialog.Title className="dialog-title">{title}</RadixAlertDialog.Title>
          <RadixAlertDialog.Description className="dialog-description">
            {description}
          </RadixAlertDialog.Description>
          {children}
          <div className="dialog-actions">
            <RadixAlertDialog.Cancel asChild>
              <Button>{cancelLabel}</Button>
            </RadixAlertDialog.Cancel>
            <RadixAlertDialog.Action asChild>
              <Button
                variant={tone}
                disabled={confirm.busy}
                aria-busy={confirm.busy || undefined}
                onClick={() => void confirm.run()}
              >
                {confirmLabel}
              </Button>
            </RadixAlertDialog.Action>
          </div>
        </RadixAlertDialog.Content>
      </RadixAlertDialog.Portal>
    </RadixAlertDialog.Root>
  )
}
