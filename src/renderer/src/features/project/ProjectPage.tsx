import { Lightbulb, PanelRightClose, PanelRightOpen } from 'lucide-react'
import { useEffect, useState } from 'react'
import { Group, Panel, Separator, useDefaultLayout, usePanelRef } from 'react-resizable-panels'
import type { ProjectDetail } from '../../../../shared/project'
import { errorMessage } from '../../app/queries'
import { routeHash, type SidePanel as PanelName } from '../../app/routes'
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
 * (widening the side panel stops here). The side panel keeps its own minimum; at a small window the two together
 * still fit beside the sidebar (1024 px: 200 + 520 + 280 < 1024).
 */
export const MAIN_MIN_PX = 520
const SIDE_MIN_PX = 280
const SIDE_DEFAULT = '36%'
/** The sidebar's width in a small window (app.css). */
const SIDEBAR_SMALL_PX = 200
/** Narrower than this, the two columns cannot both keep their minimum beside the sidebar: the panel overlays. */
const NARROW_QUERY = `(max-width: ${SIDEBAR_SMALL_PX + MAIN_MIN_PX + SIDE_MIN_PX}px)`

function useNarrowWindow(): boolean {
  const [narrow, setNarrow] = useState(() => window.matchMedia?.(NARROW_QUERY).matches ?? false)
  useEffect(() => {
    const media = window.matchMedia?.(NARROW_QUERY)
    if (!media) return
    const onChange = () => setNarrow(media.matches)
    media.addEventListener('change', onChange)
    return () => media.removeEventListener('change', onChange)
  }, [])
  return narrow
}

/** Side by side where the window has room for both columns' minimums; else the side panel opens over the chat. */
function ProjectLayout({ project, panel }: { project: ProjectDetail; panel?: PanelName }) {
  const narrow = useNarrowWindow()
  return narrow ? (
    <OverlayLayout project={project} panel={panel} />
  ) : (
    <SplitLayout project={project} panel={panel} />
  )
}

/** A small window: the project takes the whole width, and the open side panel lies over its right side. */
function OverlayLayout({ project, panel }: { project: ProjectDetail; panel?: PanelName }) {
  const collapsed = useProjectUi((s) => s.sidePanelCollapsed)
  const toggle = useProjectUi((s) => s.toggleSidePanel)
  return (
    <div className="project-layout project-layout-overlay">
      <ProjectMain project={project} collapsed={collapsed} />
      {collapsed ? null : (
        <div className="side-overlay" data-testid="side-overlay">
          <SidePanel project={project} panel={panel} onClose={toggle} />
        </div>
      )}
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
  const toggle = useProjectUi((s) => s.toggleSidePanel)
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
            onClick={toggle}
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
