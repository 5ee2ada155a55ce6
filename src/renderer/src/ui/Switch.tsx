import type { ReactNode } from 'react'

/** An on/off switch: a checkbox with role="switch" inside its label; `id`-hint is the element that explains it. */
export function Switch({
  id,
  checked,
  disabled,
  onChange,
  children,
}: {
  id: string
  checked: boolean
  disabled: boolean
  onChange(checked: boolean): void
  children: ReactNode
}) {
  return (
    <label className="switch" htmlFor={id}>
      <input
        id={id}
        type="checkbox"
        role="switch"
        aria-describedby={`${id}-hint`}
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChange(e.target.checked)}
      />
      <span>{children}</span>
    </label>
  )
}
