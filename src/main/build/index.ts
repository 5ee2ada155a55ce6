export { runBuild, type BuildInput, type BuildResult } from './runBuild'
export type { BuildEvent, BuildOwnEvent, BuildStatus } from './events'
export { buildModes, type BuildMode, type BuildBudget } from './decide'
export type { BuildNotification } from './notifications'
