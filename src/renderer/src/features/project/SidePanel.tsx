import { FileCode, History, ListTodo } from 'lucide-react'
import type { ProjectDetail } from '../../../../shared/project'
import { defaultSidePanel, sidePanels, type SidePanel as Panel } from '../../app/routes'
import { navigate } from '../../app/useRoute'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '../../ui'
import { PlanPanel } from '../plan'
import { QueuePanel } from '../queue'
import { Timeline } from '../timeline'

const tabs: Record<Panel, { label: string; icon: typeof History }> = {
  timeline: { label: 'Timeline', icon: History },
  plan: { label: 'Plan', icon: FileCode },
  queue: { label: 'Queue', icon: ListTodo },
}

/**
 * Timeline, Plan and Queue beside the project (DESIGN.md §15). The open tab is in the URL (`?panel=`), so a
 * reload or a link keeps it.
 */
export function SidePanel({ project, panel }: { project: ProjectDetail; panel: Panel | undefined }) {
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
          {sidePanels.map((id) => {
            const { label, icon: Icon } = tabs[id]
            return (
              <TabsTrigger key={id} value={id}>
                <Icon size={14} aria-hidden />
                {label}
              </TabsTrigger>
            )
          })}
        </TabsList>
      </div>
      <TabsContent value="timeline" className="timeline-tab">
        <Timeline projectId={project.id} />
      </TabsContent>
      <TabsContent value="plan" className="plan-tab">
        <PlanPanel projectId={project.id} />
      </TabsContent>
      <TabsContent value="queue" className="queue-tab">
        <QueuePanel projectId={project.id} />
      </TabsContent>
    </Tabs>
  )
}
