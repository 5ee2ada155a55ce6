import type { ReactNode } from 'react'
import { cx } from './cx'

/** What a surface shows when it has nothing yet: what will be here, and how to get there. No fake controls. */
export function EmptyState({
  icon,
  title,
  children,
  className,
}: {
  icon?: ReactNode
  title: string
  children?: ReactNode
  className?: string
}) {
  return (
    <div className={cx('empty-state', className)}>
      {icon ? (
        <div className="empty-state-icon" aria-hidden>
          {icon}
        </div>
      ) : null}
      <p className="empty-state-title">{title}</p>
      {children ? <div className="empty-state-body">{children}</div> : null}
    </div>
  )
}
