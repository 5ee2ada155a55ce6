import './taskCard.css'

/**
 * A path that fits its space by cutting its middle: the folders shrink to "…", the file name stays; the whole path
 * is the tooltip.
 */
export function MiddlePath({ path, className }: { path: string; className?: string }) {
  const cut = path.lastIndexOf('/') + 1
  const head = path.slice(0, cut)
  const tail = path.slice(cut)
  return (
    <span className={`mid-path${className ? ` ${className}` : ''}`} title={path}>
      {head ? <span className="mid-path-head">{head}</span> : null}
      <span className="mid-path-tail">{tail}</span>
    </span>
  )
}
