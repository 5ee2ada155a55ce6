import { basename } from 'node:path'
import type { Project } from '../../shared/project'
import type { ProjectsRepo } from '../store'
import { initRalphDir, type InitResult } from './initRalphDir'
import { checkProjectFolder } from './projectFolder'

export interface OpenProjectOptions {
  /** The user confirmed a folder that looks like a home folder (checkHomeLike). */
  confirmHomeLike?: boolean
  /** How the refusal of a home-like folder tells the user to confirm (the CLI names its flag). */
  confirmHint?: string
}

/**
 * Opening a folder as a project, for every host (`projects.open`, `ralph init`): check the folder (never the
 * file system's root, a system folder or the home folder; a home-like folder only once the user confirmed it),
 * create what is missing of `.ralph/` (never overwriting), and register it in the app database.
 */
export async function openProject(
  projects: ProjectsRepo,
  path: string,
  openedFrom: string,
  options: OpenProjectOptions = {},
): Promise<{ project: Project; init: InitResult }> {
  const dir = checkProjectFolder(path, {
    confirmHomeLike: options.confirmHomeLike === true,
    confirmHint: options.confirmHint,
  })
  const init = await initRalphDir(dir, { openedFrom })
  const project = projects.upsert(dir, basename(dir) || dir, Date.now())
  return { project, init }
}
