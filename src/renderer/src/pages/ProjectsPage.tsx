import { useEffect, useRef, useState, type FormEvent } from 'react'
import { client } from '../api'
import { useStudio } from '../state/store'
import { shortcutLabel } from '../useShortcuts'

const timeAgo = (ms: number) => {
  const s = Math.round((Date.now() - ms) / 1000)
  if (s < 60) return 'just now'
  if (s < 3600) return `${Math.round(s / 60)} min ago`
  if (s < 86400) return `${Math.round(s / 3600)} h ago`
  return new Date(ms).toLocaleDateString()
}

/** The project picker: recent projects, plus "Open folder…" (native dialog) or a path field (browser). */
export function ProjectsPage() {
  const projects = useStudio((s) => s.projects)
  const info = useStudio((s) => s.info)
  const opening = useStudio((s) => s.opening)
  const openError = useStudio((s) => s.openError)
  const openProject = useStudio((s) => s.openProject)
  const navigate = useStudio((s) => s.navigate)
  const clearOpenError = useStudio((s) => s.clearOpenError)
  const [path, setPath] = useState('')
  const input = useRef<HTMLInputElement>(null)

  const pickNative = async () => {
    const picked = await client.call('dialog.pickFolder', {})
    if (picked.path) await openProject(picked.path)
  }

  useEffect(() => {
    const focus = () => {
      if (info?.nativeFolderPicker) void pickNative()
      else input.current?.focus()
    }
    window.addEventListener('ralph:open-folder', focus)
    return () => window.removeEventListener('ralph:open-folder', focus)
  })

  const submit = (event: FormEvent) => {
    event.preventDefault()
    void openProject(path)
  }

  return (
    <section className="page">
      <header className="page-header">
        <h1>Projects</h1>
        <p className="muted">
          Open a folder to build in. Ralph snapshots it at every task so any step can be undone.
        </p>
      </header>

      <form className="card open-form" onSubmit={submit} aria-label="Open a folder">
        <label htmlFor="project-path">Folder path</label>
        <div className="row">
          <input
            id="project-path"
            ref={input}
            value={path}
            onChange={(e) => {
              setPath(e.target.value)
              if (openError) clearOpenError()
            }}
            placeholder="/home/you/my-app"
            spellCheck={false}
            autoComplete="off"
            aria-invalid={!!openError}
            aria-describedby={openError ? 'open-error' : undefined}
          />
          <button type="submit" className="primary" disabled={opening || !path.trim()}>
            {opening ? 'Opening…' : 'Open'}
          </button>
          {info?.nativeFolderPicker ? (
            <button type="button" onClick={() => void pickNative()} title={shortcutLabel('O')}>
              Open folder…
            </button>
          ) : null}
        </div>
        {openError ? (
          <p id="open-error" className="field-error" role="alert">
            {openError}
          </p>
        ) : (
          <p className="hint">
            Press {shortcutLabel('O')} to jump here. The folder gets a .ralph/ folder for Ralph's state.
          </p>
        )}
      </form>

      <h2>Recent</h2>
      {projects.length === 0 ? (
        <div className="empty">
          <p>No projects yet.</p>
          <p className="muted">
            Type the path of a folder above — an empty one to start fresh, or an existing codebase.
          </p>
        </div>
      ) : (
        <ul className="project-list" aria-label="Recent projects">
          {projects.map((p) => (
            <li key={p.id}>
              <button className="project-item" onClick={() => navigate({ page: 'project', projectId: p.id })}>
                <span className="project-name">{p.name}</span>
                <span className="muted path">{p.path}</span>
                <span className="muted when">{timeAgo(p.lastOpenedAt)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
