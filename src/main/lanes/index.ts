// The public face of lanes (issue #38): a lane's working copy, its cleanup, its merge and its ports.
export {
  defaultLanesConfig,
  lanesConfigSchema,
  MAX_PARALLEL,
  readLanesConfig,
  type LanesConfig,
} from './config'
export { createLane, LaneGit, type CreateLaneOptions, type Lane } from './laneCopy'
export { WORKTREE_INCLUDE, type CopyReport } from './copyListed'
export {
  diskUse,
  listLanes,
  removeLane,
  type LaneListing,
  type LaneState,
  type RemoveResult,
} from './laneClean'
export { laneDir, lanesRoot, MARKER_FILE, type LaneMarker } from './laneFolder'
export { commitLaneResult, mergeOnto, parseMergeTree } from './mergeLane'
export {
  nextAfterMerge,
  MAX_MERGE_ATTEMPTS,
  type MergeOutcome,
  type NextStep,
  type Verdict,
} from './mergeDecision'
export { laneEnv, lanePorts, LANE_PORT_BASE, PORTS_PER_LANE, type LanePorts } from './ports'
// The CLI's and the scheduler's part (helper "lanecli"): the project's lanes id, the pure scheduler.
export { laneProjectId } from './projectKey'
export { projectLanesDir } from './laneFolder'
export {
  laneOfEvent,
  schedule,
  tagLane,
  tasksInBuildOrder,
  type HeldTask,
  type HoldKind,
  type LaneStart,
  type LaneTags,
  type MergeHeld,
  type QueueTask,
  type Schedule,
  type ScheduleInput,
  type TaskInLane,
} from './schedule'
// Merging a lane's result with the `.ralph/` rules (seam 3).
export { mergeLaneResult, type LaneMerge, type LaneMergeInput } from './mergeLane'
export { conflictFeedback, type MergeConflict } from './mergeDecision'
export {
  largerCounter,
  planSidesFor,
  ralphActions,
  ralphRuleFor,
  unionLines,
  RULED_PATHS,
  type RalphAction,
  type RalphRule,
} from './ralphMergeRules'
// A lane as a project of its own running one queue task (helper "lanerun").
export { runInLane, type LaneRunInput, type LaneRunResult } from './runInLane'
export { fetchLaneSnapshots, laneRef, type LaneRefName } from './laneFetch'
export { runLaneSetup, SETUP_TIMEOUT_MS } from './laneSetup'
// Verification again on the merged tree, in the task's lane (helper "laneverify").
export { verifyMergedInLane, type VerifyMergedInput } from './verifyMerged'
export { moveLaneTo } from './laneMove'
export { claimLane } from './laneClaim'
// A stopped lane's work kept in the project's store until the next build resumes or discards it.
export {
  discardKept,
  keepLaneState,
  keptFate,
  keptMessage,
  keptRef,
  listKept,
  parseKeptMessage,
  resumeStart,
  settleKept,
  type KeptFate,
  type KeptState,
  type ResumeStart,
} from './laneKeep'
