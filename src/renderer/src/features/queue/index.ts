// The Queue panel (issue 15): the side panel's Queue tab over the work queue's use-cases.
export { QueuePanel } from './QueuePanel'
// A build from the Queue panel as the chat's strip and the project header show it.
export {
  buildHeadline,
  buildPosition,
  useProjectBuild,
  type BuildHeadline,
  type ProjectBuild,
} from './buildState'
export { useBuildControl, useBuildStatus, useVerifications } from './queries'
export { buildTaskTone, outcomeHint, outcomeTone } from './VerdictList'
// A parallel build's lanes side by side (the Queue's build section and the chat's strip).
export { LanesView, laneStateWords } from './LanesView'
// The build budgets' rules, which the composer's cost cap shares.
export { checkBudget } from './budget'
// The core's messages (shared with the CLI) as the app says them: no command hints, tasks by name.
export { forTheApp, taskNames, withoutCliHints } from './appText'
