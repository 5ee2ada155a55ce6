import { useEffect, useState } from 'react'
import { Dialog, DialogContent } from '../ui'
import { isSheetKey, shortcutSheet } from './shortcuts'

/** The "?" sheet: every shortcut, from the one list in shortcuts.ts. It opens on its ✕ (nothing to fill in), one Esc shuts it, and focus goes back. */
export function ShortcutSheet() {
  const [open, setOpen] = useState(false)
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || !isSheetKey(event)) return
      event.preventDefault()
      setOpen(true)
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      {open ? (
        <DialogContent title="Keyboard shortcuts">
          <div className="shortcut-sheet">
            {shortcutSheet().map((group) => (
              <section key={group.title} className="shortcut-group">
                <h3 className="shortcut-group-title">{group.title}</h3>
                <ul className="shortcut-list" aria-label={`${group.title} shortcuts`}>
                  {group.keys.map((k) => (
                    <li key={`${k.keys} ${k.description}`} className="shortcut-row">
                      <kbd>{k.keys}</kbd>
                      <span>{k.description}</span>
                    </li>
                  ))}
                </ul>
              </section>
            ))}
          </div>
        </DialogContent>
      ) : null}
    </Dialog>
  )
}
