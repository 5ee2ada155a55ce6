import type { HTMLAttributes } from 'react'
import { cx } from './cx'

export type Tone = 'neutral' | 'accent' | 'ok' | 'warn' | 'bad' | 'info'

export function Badge({
  tone = 'neutral',
  className,
  ...rest
}: HTMLAttributes<HTMLSpanElement> & { tone?: Tone }) {
  return <span className={cx('badge', `tone-${tone}`, className)} {...rest} />
}
