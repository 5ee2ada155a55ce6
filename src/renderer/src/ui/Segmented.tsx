import { cx } from './cx'

/**
 * A row of mutually exclusive choices (a radio group of buttons): `options` as [value, label] pairs, the chosen
 * one marked `segment-on` and aria-checked. `className` styles the group (`segmented`, `timeline-filter` …).
 */
export function Segmented<V extends string>({
  label,
  className,
  options,
  value,
  onChange,
}: {
  label: string
  className: string
  options: readonly (readonly [V, string])[]
  value: V
  onChange(value: V): void
}) {
  return (
    <div className={className} role="radiogroup" aria-label={label}>
      {options.map(([option, text]) => (
        <button
          key={option}
          type="button"
          role="radio"
          aria-checked={value === option}
          className={cx('segment', value === option && 'segment-on')}
          onClick={() => onChange(option)}
        >
          {text}
        </button>
      ))}
    </div>
  )
}
