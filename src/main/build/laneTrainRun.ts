// The merge train's effects (its decisions are mergeTrain.ts): finished lane jobs merged onto a chain of candidates
// in the project's store, each clean candidate on a moved base verified again in its job's lane at the same time as
// the others, stale cars cancelled and merged again, and the train's root moved after an apply. The build
// (laneBuild.ts) applies or fails the head, one at a time.
// A job joins while its lane's own verification is still judging (`awaiting`): its merge and its verification on the
// merged tree run meanwhile, and their events are held back until the lane's verdict is in, so the build's stream
// reads as before (verified in the lane, merging, verified again); a job whose verdict sends it elsewhere leaves.
import { AppError } from '../../shared/errors'
import { mergeLaneResult, type LaneMerge } from '../lanes'
import { ShadowGit, storePaths } from '../snapshots'
import type { BuildInput } from './buildInput'
import type { BuildEvent } from './events'
import type { LaneJob } from './laneJob'
import { checkMerged, type MergedVerdict } from './mergedCheck'
import { headStep, rootAfterApply, staleFrom, tipOf, type Car, type HeadStep } from './mergeTrain'

/** A finished job in the merge train. */
export interface TrainCar extends Car {
  job: LaneJob
  merge: LaneMerge | null
  /** Its verdict on the merged tree (PASS, NEEDS_HUMAN or FAIL, with the reasons). */
  verdict: MergedVerdict | null
  /** Its verification on the merged tree could not run: the build fails saying so. */
  error: string | null
  /** Cancels its verification when it goes stale. */
  controller: AbortController
  checking: Promise<void> | null
  /** Its events while it awaits its lane's verdict, emitted in order once that verdict sends it to merge. */
  held: BuildEvent[]
}

export interface TrainContext {
  input: BuildInput
  now: () => number
  emit(event: BuildEvent): void
  /** A verification on a merged tree ended: the build's loop looks again. */
  nudge(): void
  /** The cost of a verification on a merged tree, into the build's sum. */
  addCost(usd: number): void
}

export class TrainRun {
  /** Finished tasks merged onto a chain of candidates, in merge order. */
  readonly cars: TrainCar[] = []
  /** What the first car builds on: the integration state, or the candidate applied as it. */
  root = ''

  constructor(private readonly c: TrainContext) {}

  /** A car whose verification on the merged tree could not run (the build fails saying so). */
  broken(): TrainCar | undefined {
    return this.cars.find((car) => car.error !== null)
  }

  head(): HeadStep {
    return headStep(this.cars, this.root)
  }

  /** Whether the train can move without waiting: its head is settled, or a car is stale. */
  moves(): boolean {
    const step = this.head()
    return step === 'apply' || step === 'fail' || staleFrom(this.cars, this.root) !== -1
  }

  has(job: LaneJob): boolean {
    return this.cars.some((car) => car.job === job)
  }

  isHead(job: LaneJob): boolean {
    return this.cars[0]?.job === job
  }

  checking(): boolean {
    return this.cars.some((car) => car.check === 'running')
  }

  /** Stale cars (a car ahead failed, or the root moved): cancelled, and each merged again onto the chain. */
  async restale(): Promise<void> {
    const from = staleFrom(this.cars, this.root)
    if (from === -1) return
    const stale = this.cars.slice(from)
    for (const car of stale)
      car.controller.abort(new AppError('cancelled', 'A task merged ahead of it failed.'))
    await Promise.all(stale.map((car) => car.checking))
    for (let i = from; i < this.cars.length; i++) {
      const car = this.cars[i]!
      car.base = tipOf(this.cars.slice(0, i), this.root)
      // What a cancelled check held back was never shown: only the new merge's events are.
      car.held.length = 0
      await this.merge(car)
    }
  }

  /**
   * The job merged onto the train's tip (its verification there starts at once): finished in its lane, or
   * `awaiting` its lane's own verdict (its folder is free while the model judges).
   */
  async add(job: LaneJob, awaiting = false): Promise<void> {
    const car: TrainCar = {
      ...{ taskId: job.task.id, job, base: tipOf(this.cars, this.root), commit: null, awaiting },
      ...{ check: 'not-needed' as const, merge: null, verdict: null, error: null },
      ...{ controller: new AbortController(), checking: null, held: [] },
    }
    await this.merge(car)
    this.cars.push(car)
  }

  /** The job's lane verdict sends it to merge: it may be applied, and what it held back is emitted now. */
  settled(job: LaneJob): void {
    const car = this.cars.find((c) => c.job === job)
    if (!car?.awaiting) return
    car.awaiting = false
    for (const event of car.held.splice(0)) this.c.emit(event)
  }

  /**
   * The job's lane verdict does not send it to merge (or it ended otherwise): it leaves the train, its verification
   * on the merged tree cancelled and waited for (its cost counted); the cars behind it go stale and merge again.
   */
  async drop(job: LaneJob): Promise<void> {
    const i = this.cars.findIndex((c) => c.job === job)
    if (i === -1) return
    const [car] = this.cars.splice(i, 1)
    car!.controller.abort(new AppError('cancelled', `${job.task.id} does not merge now.`))
    await car!.checking
  }

  /**
   * After the head's candidate was applied as `integration`: the cars behind stay on their candidates when the
   * applied snapshot differs from the candidate only in the build's own files (`own`), else they merge again.
   */
  async applied(candidate: string, integration: string, own: ReadonlySet<string>): Promise<void> {
    if (this.cars.length === 0) return
    const { projectDir } = this.c.input
    const git = new ShadowGit(storePaths(projectDir).gitDir, projectDir)
    const differs = (
      await git.fields(['diff-tree', '-r', '-z', '--no-renames', '--name-only', candidate, integration])
    ).filter((p) => p !== '' && !own.has(p))
    this.root = rootAfterApply(candidate, integration, differs)
  }

  /** The build ends: every verification on a merged tree is cancelled and waited for. */
  async cancelAll(): Promise<void> {
    for (const car of this.cars) car.controller.abort(new AppError('cancelled', 'The build ended.'))
    await Promise.all(this.cars.map((car) => car.checking))
    this.cars.length = 0
  }

  /** Merges the car's task onto its base; a clean candidate on a moved base starts its verification there. */
  private async merge(car: TrainCar): Promise<void> {
    const { job } = car
    const { input } = this.c
    const { projectDir } = input
    const emit = (event: BuildEvent) => (car.awaiting ? car.held.push(event) : this.c.emit(event))
    emit({ type: 'build.merging', taskId: job.task.id, task: job.number })
    const merge = await mergeLaneResult(new ShadowGit(storePaths(projectDir).gitDir, projectDir), {
      ours: car.base,
      theirs: job.run!.postCommit!,
      task: job.number,
      base: job.base,
      message: `task ${job.number} (${job.task.id}) merged from lane ${job.lane}\n`,
      now: this.c.now,
    })
    car.merge = merge
    car.commit = merge.kind === 'clean' ? merge.commit! : null
    car.verdict = null
    car.error = null
    // Nothing merged since the lane began: the candidate is the tree the lane just verified.
    if (merge.kind === 'conflict' || car.base === job.base) {
      car.check = 'not-needed'
      return
    }
    car.check = 'running'
    car.controller = new AbortController()
    const signal = AbortSignal.any([input.signal, car.controller.signal])
    car.checking = checkMerged({
      ...{ input, task: job.task, lane: job.handle!, number: job.number },
      ...{ runId: job.run!.runId ?? null, firstNonce: job.nonce, base: car.base, candidate: car.commit! },
      ...{ signal, emit },
    }).then((checked) => {
      // Cancelled or failed midway, it still paid for what it judged.
      this.c.addCost(checked.costUsd)
      if (signal.aborted || checked.kind === 'cancelled') return
      if (checked.kind === 'error') car.error = checked.message
      else {
        car.verdict = checked.verdict
        car.check = checked.verdict.outcome
      }
      this.c.nudge()
    })
  }
}
