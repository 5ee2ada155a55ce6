export { readUserGitState } from './state'
export { excludeRalph, type ExcludeResult } from './exclude'
export {
  commitTask,
  planTaskCommit,
  refusalError,
  type CommitInput,
  type CommitResult,
  type CommitTaskInput,
  type MadeCommit,
} from './commitTask'
export { commitStates, type CommitState } from './commits'
export { taskSnapshotsOf, type TaskChange, type TaskSnapshots } from './taskChanges'
export { RepoTrustBook, seeRepo, type RepoSight } from './trust'
export { watchUserRepo } from './trust'
