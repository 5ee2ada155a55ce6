import { Button, type ButtonProps } from './Button'
import { useSingleFlight } from './useSingleFlight'

export interface ActionButtonProps extends Omit<ButtonProps, 'onClick'> {
  /** What the button does; return the call's promise (`mutation.mutateAsync(…)`) so the button stays busy until it settles. */
  onAction: () => unknown
}

/**
 * A button that changes something: disabled (and aria-busy) from the first click until its action settles, so a
 * double click acts once. Every mutating button in the app is one of these, or uses useSingleFlight directly.
 */
export function ActionButton({ onAction, disabled, ...rest }: ActionButtonProps) {
  const { run, busy } = useSingleFlight(onAction)
  return (
    <Button
      {...rest}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
      onClick={() => {
        void run()
      }}
    />
  )
}
