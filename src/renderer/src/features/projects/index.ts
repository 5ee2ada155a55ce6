// The projects screen (issue 4): the list of known projects, opening and forgetting one.
export { ProjectsPage } from './ProjectsPage'
export { useForgetProject } from './queries'
export { useProjectsUi } from './projectsUi'
export { timeAgo } from './timeAgo'
