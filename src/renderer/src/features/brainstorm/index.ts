// Brainstorming a project into a plan (issue 9).
export { BrainstormPage } from './BrainstormPage'
