export { SnapshotEngine, DEFAULT_FILE_DIFF_LIMIT, type SnapshotEngineOptions } from './engine'
export { MIN_GIT_VERSION, checkGitVersion } from './git'
export { DEFAULT_SIZE_CAP, BUILTIN_EXCLUDED_DIRS } from './exclusions'
export { kindOfTag } from './tags'
export * from './types'
export { snapshotSource, hasTag } from './snapshotSource'
export { acquireTaskLock, runningTask, TASK_BUSY_MESSAGE, type TaskLock } from './taskLock'
export { snapshotTags } from './tags'
export {
  BASELINE_MIN_FILES,
  startBaseline,
  runningBaseline,
  waitForBaseline,
  type BaselineJob,
} from './baseline'
