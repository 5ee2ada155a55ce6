import { FileCode, History, ListTodo, X, type LucideIcon } from 'lucide-react'
import type { ReactNode } from 'react'
import type { ProjectDetail } from '../../../../shared/project'
import { defaultSidePanel, sidePanels, type SidePanel as Panel } from '../../app/routes'
import { navigate } from '../../app/useRoute'
import { IconButton, Tabs, TabsContent, TabsList, TabsTrigger } from '../../ui'
import { PlanPanel } from '../plan'
import { QueuePanel } from '../queue'
import { Timeline } from '../timeline'

/** One side-panel tab: its trigger (icon and label, the tab's accessible name) and its content. */
interface SidePanelTab {
  value: Panel
  label: string
  icon: LucideIcon
  className: string
  render: (projectId: number) => ReactNode
}

/**
 * The side panel's tabs, in order. Adding a tab is one entry here (and its id in `sidePanels`, the URL's list);
 * the check below fails to compile when an id in `sidePanels` has no entry.
 */
const tabs = [
  {
    value: 'timeline',
    label: 'Timeline',
    icon: History,
    className: 'timeline-tab',
    render: (id) => <Timeline projectId={id} />,
  },
  {
    value: 'plan',
    label: 'Plan',
    icon: FileCode,
    className: 'plan-tab',
    render: (id) => <PlanPanel projectId={id} />,
  },
  {
    value: 'queue',
    label: 'Queue',
    icon: ListTodo,
    className: 'queue-tab',
    render: (id) => <QueuePanel projectId={id} />,
  },
] as const satisfies readonly SidePanelTab[]

type Untabbed = Exclude<(typeof sidePanels)[number], (typeof tabs)[number]['value']>
const everyPanelHasATab: [Untabbed] extends [never] ? true : Untabbed = true
void everyPanelHasATab

/**
 * Timeline, Plan and Queue beside the project (DESIGN.md §15). The open tab is in the URL (`?panel=`), so a
 * reload or a link keeps it.
 */
export function SidePanel({
  project,
  panel,
  onClose,
}: {
  project: ProjectDetail
  panel: Panel | undefined
  /** Where the panel lies over the chat (a small window), its own way to close. */
  onClose?: () => void
}) {
  return (
    <Tabs
      className="side-panel"
      value={panel ?? defaultSidePanel}
      onValueChange={(value) =>
        navigate({ page: 'project', projectId: project.id, panel: value as Panel }, { replace: true })
      }
    >
      <div className="side-panel-header">
        <TabsList label="Side panel">
          {tabs.map(({ value, label, icon: Icon }) => (
            <TabsTrigger key={value} value={value}>
              <Icon size={14} aria-hidden />
              {label}
            </TabsTrigger>
          ))}
        </TabsList>
        {onClose ? (
          <IconButton
            className="side-panel-close"
            label="Close side panel"
            icon={<X size={16} aria-hidden />}
            onClick={onClose}
          />
        ) : null}
      </div>
      {tabs.map(({ value, className, render }) => (
        <TabsContent key={value} value={value} className={className}>
          {render(project.id)}
        </TabsContent>
      ))}
    </Tabs>
  )
}
