import { Lightbulb, PanelRightClose, PanelRightOpen } from 'lucide-react'
import { useEffect, useRef, useState } from 'react'
import { Group, Panel, Separator, useDefaultLayout, usePanelRef } from 'react-resizable-panels'
import type { ProjectDetail } from '../../../../shared/project'
import { errorMessage } from '../../app/queries'
import { routeHash, type SidePanel as PanelName } from '../../app/routes'
import { navigate } from '../../app/useRoute'
import { shortcutLabel } from '../../app/shortcuts'
import { useDocumentTitle } from '../../app/useDocumentTitle'
import { Banner, IconButton } from '../../ui'
import { Chat } from '../chat'
import { useProjectBuild } from '../queue'
import { McpServersDialog } from './McpServersDialog'
import { EngineChip } from './EngineChip'
import { RulesFiles } from './RulesFiles'
import { ProjectMenu } from './ProjectMenu'
import { ProjectStatus } from './ProjectStatus'
import { useProjectUi } from '../../app/projectUi'
import { useProject, useRunning } from '../../app/projectQueries'
import { SidePanel } from './SidePanel'
import { DRAWER_QUERY, isDrawerWindow, toggleSidePanel, useSideDrawer } from './sideDrawer'
import { UserGitState } from '../userGit'
import './project.css'

export function ProjectPage({ projectId, panel }: { projectId: number; panel?: PanelName }) {
  const project = useProject(projectId)
  useDocumentTitle(project.data?.name ?? null)
  if (project.error) {
    return (
      <div className="page">
        <Banner tone="error">{errorMessage(project.error)}</Banner>
        <a className="btn" href={routeHash({ page: 'projects' })}>
          Back to projects
        </a>
      </div>
    )
  }
  if (!project.data) return <div className="page muted">Loading project…</div>
  return <ProjectLayout project={project.data} panel={panel} />
}

/**
 * The main column never gets narrower than this: the header's actions, the title and the composer's row fit
 * (widening the side panel stops here). The side panel keeps its own minimum. Below DRAWER_MAX_PX the side panel
 * is a drawer instead (sideDrawer.ts), so the split is only ever laid out with room for both.
 */
export const MAIN_MIN_PX = 520
const SIDE_MIN_PX = 280
const SIDE_DEFAULT = '36%'

function useDrawerWindow(): boolean {
  const [narrow, setNarrow] = useState(isDrawerWindow)
  useEffect(() => {
    const media = window.matchMedia?.(DRAWER_QUERY)
    if (!media) return
    const onChange = () => setNarrow(media.matches)
    media.addEventListener('change', onChange)
    return () => media.removeEventListener('change', onChange)
  }, [])
  return narrow
}

/** Side by side where the window is wide; else the side panel is a drawer over the chat. */
function ProjectLayout({ project, panel }: { project: ProjectDetail; panel?: PanelName }) {
  const narrow = useDrawerWindow()
  return narrow ? (
    <DrawerLayout project={project} panel={panel} />
  ) : (
    <SplitLayout project={project} panel={panel} />
  )
}

/** The header's Show/Hide side panel button, where focus goes back when the drawer closes. */
const toggleButton = () => document.querySelector<HTMLElement>('[data-side-toggle]')

/**
 * A small window: the project takes the whole width, and the side panel opens over its right side when asked
 * for: by the header's button or Ctrl/⌘+B (focus moves into it), by an address naming a tab, or by a card's
 * action that opens a tab (Compare, Review plan changes). Esc or its ✕ closes it, and focus goes back to the
 * header's button.
 */
function DrawerLayout({ project, panel }: { project: ProjectDetail; panel?: PanelName }) {
  const open = useSideDrawer((s) => s.open)
  const takeFocus = useSideDrawer((s) => s.takeFocus)
  const setOpen = useSideDrawer((s) => s.setOpen)
  const drawer = useRef<HTMLDivElement>(null)
  const wasOpen = useRef(open)

  // An address that names a tab opens it, at first and whenever the tab changes (a card's Compare).
  useEffect(() => {
    setOpen(panel !== undefined)
  }, [panel, setOpen])
  useEffect(() => () => setOpen(false), [setOpen])

  useEffect(() => {
    const closed = wasOpen.current && !open
    wasOpen.current = open
    // Closed: the address forgets the tab, so the next card action that names it opens the drawer again.
    if (closed && panel !== undefined) navigate({ page: 'project', projectId: project.id }, { replace: true })
    // Opened from the keyboard or the header's button: focus goes to its open tab.
    if (open && takeFocus)
      drawer.current?.querySelector<HTMLElement>('[role="tab"][aria-selected="true"]')?.focus()
  }, [open, takeFocus, panel, project.id])

  const close = () => {
    const inside = drawer.current?.contains(document.activeElement) ?? false
    setOpen(false)
    // Focus was in the drawer, which is going: it goes back to the button that opens it again.
    if (inside) requestAnimationFrame(() => toggleButton()?.focus())
  }

  return (
    <div className="project-layout project-layout-overlay">
      <ProjectMain project={project} collapsed={!open} />
      {open ? (
        <div
          ref={drawer}
          className="side-overlay"
          data-testid="side-overlay"
          onKeyDown={(e) => {
            if (e.key !== 'Escape' || e.defaultPrevented) return
            // A dialog, a menu or the full-width plan inside takes Esc first.
            if (
              document.querySelector(
                '[role="dialog"], [role="alertdialog"], [role="menu"], [data-takes-escape]',
              )
            )
              return
            e.preventDefault()
            close()
          }}
        >
          <SidePanel project={project} panel={panel} onClose={close} />
        </div>
      ) : null}
    </div>
  )
}

/** The project on the left, the side panel on the right; the split is resizable and the side panel folds away. */
function SplitLayout({ project, panel }: { project: ProjectDetail; panel?: PanelName }) {
  const collapsed = useProjectUi((s) => s.sidePanelCollapsed)
  const layout = useDefaultLayout({ id: 'ralph-project-layout', storage: localStorage })
  const side = usePanelRef()

  // The store is the truth (the toggle and Ctrl/⌘+B change it); the panel follows.
  useEffect(() => {
    const handle = side.current
    if (!handle) return
    if (collapsed && !handle.isCollapsed()) handle.collapse()
    if (!collapsed && handle.isCollapsed()) {
      handle.expand()
      // Collapsed since the last session, it has no earlier size to return to and would open at its minimum.
      if (handle.getSize().inPixels <= SIDE_MIN_PX + 1) handle.resize(SIDE_DEFAULT)
    }
  }, [collapsed, side])

  return (
    <Group
      className="project-layout"
      orientation="horizontal"
      defaultLayout={layout.defaultLayout}
      onLayoutChanged={layout.onLayoutChanged}
    >
      <Panel id="project-main" minSize={`${MAIN_MIN_PX}px`}>
        <ProjectMain project={project} collapsed={collapsed} />
      </Panel>
      <Separator className="resize-handle" aria-label="Resize the side panel" />
      <Panel
        id="project-side"
        panelRef={side}
        collapsible
        collapsedSize="0%"
        minSize={`${SIDE_MIN_PX}px`}
        maxSize="60%"
        defaultSize={SIDE_DEFAULT}
        onResize={(size, _id, previous) => {
          // Dragging it shut (or open) counts as the toggle; the first report on mount does not.
          if (!previous) return
          useProjectUi.getState().setSidePanelCollapsed(size.asPercentage === 0)
        }}
      >
        {collapsed ? null : <SidePanel project={project} panel={panel} />}
      </Panel>
    </Group>
  )
}

function ProjectMain({ project, collapsed }: { project: ProjectDetail; collapsed: boolean }) {
  const running = useRunning(project.id)
  const build = useProjectBuild(project.id, running)

  return (
    <div className="project-main">
      <header className="project-header">
        <div className="project-heading">
          <div className="project-title">
            <h1 data-testid="project-name">{project.name}</h1>
            <ProjectStatus
              state={project.state}
              taskRunning={running}
              build={build.headline}
              buildRunning={build.running}
            />
            <UserGitState projectId={project.id} />
            <EngineChip projectId={project.id} />
          </div>
          <p className="muted path project-path" data-testid="project-path" title={project.path}>
            {project.path}
          </p>
        </div>
        <div className="project-header-actions">
          <a
            className="btn btn-ghost bs-entry"
            href={routeHash({ page: 'project', projectId: project.id, view: 'brainstorm' })}
          >
            <Lightbulb size={16} aria-hidden />
            Brainstorm
          </a>
          <RulesFiles projectId={project.id} />
          <McpServersDialog projectId={project.id} />
          <ProjectMenu project={project} />
          <IconButton
            label={collapsed ? 'Show side panel' : 'Hide side panel'}
            shortcut={shortcutLabel('B')}
            icon={
              collapsed ? <PanelRightOpen size={16} aria-hidden /> : <PanelRightClose size={16} aria-hidden />
            }
            aria-expanded={!collapsed}
            data-side-toggle
            onClick={toggleSidePanel}
          />
        </div>
      </header>
      {!project.state.exists ? (
        <Banner tone="error">This folder no longer exists. It may have been moved or deleted.</Banner>
      ) : null}
      <Chat projectId={project.id} />
    </div>
  )
}
