import type { ButtonHTMLAttributes, MouseEvent, ReactNode, Ref } from 'react'
import { cx } from './cx'
import { Tooltip } from './Tooltip'

export type ButtonVariant = 'primary' | 'secondary' | 'ghost' | 'danger'

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant
  size?: 'sm' | 'md'
  icon?: ReactNode
  /**
   * Disables the button and says why in a tooltip. The button stays focusable (aria-disabled, not disabled) so
   * keyboard and pointer users can both reach the reason.
   */
  disabledReason?: string | null
  ref?: Ref<HTMLButtonElement>
}

export function Button({
  variant = 'secondary',
  size = 'md',
  icon,
  disabledReason,
  className,
  type = 'button',
  children,
  onClick,
  ...rest
}: ButtonProps) {
  const blocked = !!disabledReason
  const button = (
    <button
      type={type}
      className={cx('btn', `btn-${variant}`, size === 'sm' && 'btn-sm', !children && 'btn-icon', className)}
      aria-disabled={blocked || undefined}
      onClick={(event: MouseEvent<HTMLButtonElement>) => {
        if (blocked) event.preventDefault()
        else onClick?.(event)
      }}
      {...rest}
    >
      {icon}
      {children}
    </button>
  )
  return blocked ? <Tooltip content={disabledReason}>{button}</Tooltip> : button
}

/** An icon-only button: its label is both the accessible name and the tooltip. */
export function IconButton({
  label,
  shortcut,
  icon,
  side,
  ...rest
}: Omit<ButtonProps, 'children' | 'aria-label'> & {
  label: string
  shortcut?: string
  icon: ReactNode
  side?: 'top' | 'right' | 'bottom' | 'left'
}) {
  return (
    <Tooltip
      side={side}
      content={
        <>
          {label}
          {shortcut ? <kbd className="tooltip-kbd">{shortcut}</kbd> : null}
        </>
      }
    >
      <Button variant="ghost" aria-label={label} icon={icon} {...rest} />
    </Tooltip>
  )
}
