import { useState } from 'react'
import type { Project } from '../../../../shared/project'
import { FieldError } from '../../app/FieldError'
import { useCall } from '../../app/queries'
import { EngineChooser } from './EngineChooser'
import { EngineStatusList } from './EngineStatusList'

/** The project opened last: the one Settings shows first. */
const latest = (projects: Project[]): Project | null =>
  projects.reduce<Project | null>((a, p) => (!a || p.lastOpenedAt > a.lastOpenedAt ? p : a), null)

/** Settings → Engine for one project, with a project picker when Ralph knows several. */
function ProjectEngine({ projects }: { projects: Project[] }) {
  const [chosen, setChosen] = useState<number | null>(null)
  const project = projects.find((p) => p.id === chosen) ?? latest(projects)
  if (!project) return <p className="hint">Open a project to choose its engine: each project has its own.</p>
  return (
    <div className="card engine-project">
      {projects.length > 1 ? (
        <div className="field engine-project-pick">
          <label htmlFor="engine-project">Project</label>
          <select id="engine-project" value={project.id} onChange={(e) => setChosen(Number(e.target.value))}>
            {projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
      ) : (
        <p className="setting-label">{`Engine of ${project.name}`}</p>
      )}
      <EngineChooser key={project.id} projectId={project.id} />
    </div>
  )
}

/** Settings → Engine: the agent CLIs on this machine, and a project's choice. */
export function EngineSettings() {
  const projects = useCall('projects.list', {})
  return (
    <div className="engine-settings">
      <EngineStatusList />
      {projects.error ? <FieldError error={projects.error} /> : null}
      {projects.data ? <ProjectEngine projects={projects.data} /> : null}
    </div>
  )
}
