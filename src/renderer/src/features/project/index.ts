// The project screen: header, chat and the side panel (Timeline, Plan, Queue).
export { ProjectPage } from './ProjectPage'
