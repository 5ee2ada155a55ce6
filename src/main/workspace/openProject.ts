import { basename } from 'node:path'
import type { Project } from '../../shared/project'
import type { ProjectsRepo } from '../store/projectsRepo'
import { initRalphDir, type InitResult } from './initRalphDir'
import { checkProjectFolder } from './projectFolder'

/**
 * Opening a folder as a project, for every host (`projects.open`, `ralph init`): check the folder, create what is
 * missing of `.ralph/` (never overwriting), and register it in the app database.
 */
export async function openProject(
  projects: ProjectsRepo,
  path: string,
  openedFrom: string,
): Promise<{ project: Project; init: InitResult }> {
  const dir = checkProjectFolder(path)
  const init = await initRalphDir(dir, { openedFrom })
  const project = projects.upsert(dir, basename(dir) || dir, Date.now())
  return { project, init }
}
