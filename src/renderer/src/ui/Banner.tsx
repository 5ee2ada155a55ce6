import type { HTMLAttributes } from 'react'
import { cx } from './cx'

/** A message across the page: errors are alerts (announced at once), info is plain text. */
export function Banner({
  tone,
  className,
  ...rest
}: HTMLAttributes<HTMLDivElement> & { tone: 'error' | 'info' | 'warn' }) {
  return (
    <div
      role={tone === 'error' ? 'alert' : undefined}
      className={cx('banner', `tone-${tone}`, className)}
      {...rest}
    />
  )
}
