import { Search } from 'lucide-react'
import type { ReactNode } from 'react'
import { cx } from '../../ui'

/**
 * The timeline's search field: Escape clears the text (and stops there, so it does not also close the view it
 * sits in). `children` follow the input inside the box (a match count).
 */
export function SearchBox({
  label,
  placeholder,
  value,
  onChange,
  className,
  children,
}: {
  label: string
  placeholder: string
  value: string
  onChange(value: string): void
  className?: string
  children?: ReactNode
}) {
  return (
    <div className={cx('timeline-search', className)}>
      <Search size={13} aria-hidden className="timeline-search-icon" />
      <input
        type="search"
        aria-label={label}
        placeholder={placeholder}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && value) {
            e.stopPropagation()
            onChange('')
          }
        }}
      />
      {children}
    </div>
  )
}
