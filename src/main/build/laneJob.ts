// The lanes build's record of one attempt at a queue task in a lane, and of a task between its lanes (laneBuild.ts
// runs them; laneTrainRun.ts merges them; laneKeptWork.ts keeps a stopped one's work).
import type { TaskView } from '../../shared/queue'
import type { KeptState, Lane, LaneRunResult } from '../lanes'
import type { Finish } from './buildCore'
import type { EarlyParse } from './earlyParse'
import type { AttemptOutcome, BuildAction, TaskAttempts } from './decide'

/** One attempt at a queue task in a lane, from its start until its lane is removed. */
export interface LaneJob {
  task: TaskView
  /** Its lane folder's number (events, RALPH_LANE and ports): unique among the lane folders that exist. */
  lane: number
  /** The scheduler's lane it runs in (1…parallel): given back when the task finished in its lane. */
  slot: number
  /** The task number reserved for this attempt (task-N-pre/post), never reused. */
  number: number
  /** The integration commit the lane was made from. */
  base: string
  /** Where its working copy starts when it resumes a stopped lane's kept work (else `base`). */
  start: string
  /** The kept work it resumes: discarded once this job's own end is settled. */
  resumes: KeptState | null
  attempts: TaskAttempts
  /** 1 for the task's first lane, 2 for its rerun after a failed merge. */
  mergeAttempt: number
  state: 'running' | 'finished'
  finishedAt?: number
  controller: AbortController
  /** A spare lane it takes (laneSpares.ts), claimed for it when its job starts; null: its lane is made for it. */
  spare: Lane | null
  handle: Lane | null
  /** Its task's parse, started as its lane is made (earlyParse.ts); null: the lane's loop parses. */
  parse?: Promise<EarlyParse | null>
  /** Its task's first snapshot is taken in its lane: from then on the lane mostly waits for the model. */
  startedUp?: boolean
  /** Its lane folder is being removed (or is gone): nothing of the build runs in it any more. */
  released?: boolean
  run: LaneRunResult | null
  /** The lane's verification as decideAttempt reads it, or how the build must end. */
  outcome: AttemptOutcome | Finish | null
  /** The actions that wait for the merge (accept, or mark done for a person). */
  actions: BuildAction[]
  error: unknown
  /** The nonce of its verification in the lane: the one on the merged tree must differ. */
  nonce?: string
  /**
   * When its lane's verification had gathered its evidence (the model judging, the folder free): from then on it
   * merges and is verified on the merged tree beside that verdict (laneTrainRun.ts).
   */
  gatheredAt?: number
  /** Whether its cost is in the build's sum already. */
  counted: boolean
  done: Promise<void>
}

/** What the build remembers about a queue task between its lanes. */
export interface TaskMemory {
  attempts: TaskAttempts
  feedback: string
  mergeAttempt: number
}
