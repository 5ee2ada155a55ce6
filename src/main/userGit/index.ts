export { readUserGitState } from './state'
export {
  commitTask,
  planTaskCommit,
  refusalError,
  type CommitResult,
  type CommitTaskInput,
} from './commitTask'
export { taskSnapshotsOf, type TaskChange, type TaskSnapshots } from './taskChanges'
