import { FolderOpen, FolderPlus } from 'lucide-react'
import { useEffect, useRef, useState, type FormEvent } from 'react'
import { useClient } from '../../app/ClientProvider'
import { errorMessage, useCall } from '../../app/queries'
import { shortcutLabel } from '../../app/shortcuts'
import { useDocumentTitle } from '../../app/useDocumentTitle'
import { Banner, Button, ConfirmDialog, EmptyState, useSingleFlight } from '../../ui'
import { FirstRunSetup } from '../settings'
import { useProjectsUi } from './projectsUi'
import { ProjectItem } from './ProjectItem'
import { homeLikeQuestion, useActivity, useOpenProject, useProjects } from './queries'
import './projects.css'

/** The project picker: recent projects, plus "Open folder…" (native dialog) or a path field (browser). */
export function ProjectsPage() {
  const client = useClient()
  const info = useCall('app.info', {}, { staleTime: Infinity })
  const projects = useProjects()
  const activityList = useActivity()
  const activity = new Map((activityList.data ?? []).map((a) => [a.projectId, a]))
  const open = useOpenProject()
  // One open at a time: a double click (or Enter twice) opens the folder once.
  const opening = useSingleFlight((req: Parameters<typeof open.mutateAsync>[0]) => open.mutateAsync(req))
  const openFolderRequested = useProjectsUi((s) => s.openFolderRequested)
  const [path, setPath] = useState('')
  const input = useRef<HTMLInputElement>(null)
  useDocumentTitle('Projects')
  const nativePicker = info.data?.nativeFolderPicker ?? false

  const pickNative = async () => {
    const picked = await client.call('dialog.pickFolder', {})
    if (picked.path) await opening.run(picked.path)
  }

  // Ctrl/⌘+O: the native picker in the desktop app, the path field in a browser.
  useEffect(() => {
    if (!openFolderRequested || !info.data) return
    if (!useProjectsUi.getState().takeOpenFolderRequest()) return
    if (info.data.nativeFolderPicker) void pickNative()
    else input.current?.focus()
  })

  // A folder that looks like a home folder: the core asks before making it a project.
  const homeLike = homeLikeQuestion(open.error)

  const submit = (event: FormEvent) => {
    event.preventDefault()
    void opening.run(path)
  }

  return (
    <div className="page">
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
              if (open.error) open.reset()
            }}
            placeholder="/home/you/my-app"
            spellCheck={false}
            autoComplete="off"
            aria-invalid={!!open.error && !homeLike}
            aria-describedby={open.error && !homeLike ? 'open-error' : 'open-hint'}
          />
          <Button
            type="submit"
            variant="primary"
            disabled={opening.busy || !path.trim()}
            aria-busy={opening.busy || undefined}
          >
            {opening.busy ? 'Opening…' : 'Open'}
          </Button>
          {nativePicker ? (
            <Button icon={<FolderOpen size={16} aria-hidden />} onClick={() => void pickNative()}>
              Open folder…
            </Button>
          ) : null}
        </div>
        {open.error && !homeLike ? (
          <p id="open-error" className="field-error" role="alert">
            {errorMessage(open.error)}
          </p>
        ) : (
          <p id="open-hint" className="hint">
            Press <kbd>{shortcutLabel('O')}</kbd> to jump here. The folder gets a .ralph/ folder for Ralph's
            state.
          </p>
        )}
      </form>

      <ConfirmDialog
        open={homeLike !== null}
        onOpenChange={(next) => {
          if (!next) open.reset()
        }}
        title="Open a folder that looks like a home folder?"
        description={
          homeLike ? (
            <>
              <code>{homeLike.path}</code> has {homeLike.signs.join(', ')}, like a home folder. The model
              would see and change every file in it except credential stores (.ssh, .aws …) and .env files,
              which stay hidden. A project folder inside it is usually what you want.
            </>
          ) : null
        }
        confirmLabel="Open anyway"
        onConfirm={() => {
          if (homeLike) void opening.run({ path: homeLike.path, confirmHomeLike: true })
        }}
      />

      {/* Before any task can run: a model (after the folder field, which stays the page's first form). */}
      <FirstRunSetup />

      <section className="section" aria-labelledby="recent-heading">
        <h2 id="recent-heading" className="section-title">
          Recent
        </h2>
        {projects.error ? <Banner tone="error">{errorMessage(projects.error)}</Banner> : null}
        {projects.data && projects.data.length === 0 ? (
          <div className="card">
            <EmptyState icon={<FolderPlus size={22} />} title="No projects yet.">
              <p>Type the path of a folder above — an empty one to start fresh, or an existing codebase.</p>
            </EmptyState>
          </div>
        ) : null}
        {projects.data?.length ? (
          <ul className="project-list" aria-label="Recent projects">
            {projects.data.map((p) => (
              <li key={p.id}>
                <ProjectItem project={p} activity={activity.get(p.id)} />
              </li>
            ))}
          </ul>
        ) : null}
      </section>
    </div>
  )
}
