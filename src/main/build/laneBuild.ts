// `ralph build --parallel N` (issue #38, DESIGN.md §18): up to N ready queue tasks at once, each in a lane of its own
// (a working copy of the integration state in the app data folder, running the serial loop unchanged), verified in
// its lane, then merged back one at a time onto the integration state, verified again on the merged tree, and applied
// to the user's folder between its own task-N-pre and task-N-post: the timeline reads as a serial build. A task joins
// the merge train as soon as its lane's verification has gathered its evidence, so its verification on the merged tree
// runs while the model judges the lane's own (laneTrainRun.ts holds its events back until that verdict is in).
//
// Only this loop writes the user's folder and plan.jsonl (merges, applies, accept/reject, notifications); the lanes'
// jobs run in the background and touch only their lane and the store's refs/lanes/N/*.
import { AppError, isAppError } from '../../shared/errors'
import type { TaskView } from '../../shared/queue'
import {
  claimLane,
  createLane,
  laneOfEvent,
  laneEnv,
  laneProjectId,
  listLanes,
  nextAfterMerge,
  removeLane,
  schedule,
  tagLane,
  tasksInBuildOrder,
  type Lane,
  type Schedule,
} from '../lanes'
import { nextTaskNumber, parseBase, parseContext, RalphState, type ParseBase } from '../loop'
import { queryNext, queryState } from '../queue'
import { SnapshotEngine } from '../snapshots'
import { laneRunnerFor } from '../workers'
import { noteFailure } from '../workspace'
import { BuildCore, stopWords, type BudgetLine, type Finish } from './buildCore'
import { decideAttempt, freshAttempts, type BuildAction } from './decide'
import { EarlyParse } from './earlyParse'
import type { BuildEvent } from './events'
import { applyMergedTask } from './laneApply'
import type { LaneJob, TaskMemory } from './laneJob'
import { KeptWork, RESUMED_FEEDBACK } from './laneKeptWork'
import {
  historyLine,
  keptInFolder,
  laneFolderFor,
  queueForStarts,
  waitsForMerge,
  wantsSpare,
} from './laneSteps'
import { SpareLanes } from './laneSpares'
import { TrainRun, type TrainCar } from './laneTrainRun'
import { taskContext, taskMessage } from './taskPrompt'

export class LaneBuild extends BuildCore {
  private readonly jobs = new Map<string, LaneJob>()
  private readonly memory = new Map<string, TaskMemory>()
  private readonly merged = new Set<string>()
  /** Jobs whose background work ended and that the loop has not looked at yet. */
  private readonly ended: LaneJob[] = []
  private wake: (() => void) | null = null
  /** Something the loop waits for happened during its turn (a verification on a merged tree ended). */
  private poked = false
  /** Lanes of ended jobs whose folders are being removed, by lane number. */
  private readonly removing = new Map<number, Promise<void>>()
  /** Finished tasks merged onto a chain of candidates, in merge order (laneTrainRun.ts, mergeTrain.ts). */
  private readonly train = new TrainRun({
    input: this.input,
    now: () => this.now(),
    emit: (event) => this.emit(event),
    nudge: () => this.nudge(),
    addCost: (usd) => (this.costUsd += usd),
  })
  private integration = ''
  private lastReserved = 0
  private budgetHit: BudgetLine | null = null
  private laneProject = ''
  private appDataDir = ''
  /** Lanes made ahead for the tasks that start next (laneSpares.ts); made once the app data folder is known. */
  private spares: SpareLanes | null = null
  /** The folder as the parses of tasks starting from `base` see it (parseBaseAt). */
  private parseBaseOf: { base: string; look: Promise<ParseBase> } | null = null
  /** Stopped lanes' kept work (laneKeptWork.ts). */
  private readonly kept = new KeptWork({
    projectDir: this.input.projectDir,
    logger: this.input.logger,
    now: () => this.now(),
    emit: (event) => this.emit(event),
  })

  private get parallel(): number {
    return this.input.parallel ?? 1
  }

  /** Every event carries its lane: a lane's loop tags its own, the build's are looked up by task. */
  protected override emit(event: BuildEvent): void {
    const byTaskId = new Map([...this.jobs.values()].map((j) => [j.task.id, j.lane]))
    const byTaskNumber = new Map([...this.jobs.values()].map((j) => [j.number, j.lane]))
    this.input.emit(tagLane(event, laneOfEvent(event, { byTaskId, byTaskNumber })))
  }

  protected override async work(): Promise<Finish> {
    const { input } = this
    if (!input.appDataDir)
      throw new AppError(
        'internal',
        'A build with lanes needs the app data folder; none was given to the build.',
      )
    this.appDataDir = input.appDataDir
    this.laneProject = laneProjectId(input.projectDir)
    this.spares = new SpareLanes({
      ...{ appDataDir: this.appDataDir, laneProject: this.laneProject, projectDir: input.projectDir },
      ...{ logger: input.logger, nudge: () => this.nudge() },
    })
    await this.removeLeftovers()
    this.integration = await this.startingPoint()
    this.train.root = this.integration
    await this.kept.load()
    const onAbort = () => this.nudge()
    input.signal.addEventListener('abort', onAbort)
    const timer = this.timeBudget()
    try {
      return await this.loop()
    } finally {
      if (timer) clearTimeout(timer)
      input.signal.removeEventListener('abort', onAbort)
      await this.endAllLanes()
    }
  }

  private async loop(): Promise<Finish> {
    const { signal } = this.input
    for (;;) {
      if (signal.aborted)
        return { status: 'stopped', message: stopWords(signal, 'while lanes were building'), taskId: null }
      if (this.budgetHit) return this.budgetStop(this.budgetHit, this.runningIds())
      this.poked = false
      for (let job = this.ended.shift(); job; job = this.ended.shift()) {
        const end = await this.settle(job)
        if (end) return end
      }
      // New lanes start before the train moves: a finished task's slot is free at once, and its merge, its
      // verification on the merged tree and its apply run while the next task works.
      const started = await this.startReady()
      if (started) return started
      const moved = await this.trainTurn(await this.scheduleNow())
      if (moved) return moved
      // A lane that ended during the turn is settled (and its slot given on) before anything else.
      if (signal.aborted || this.ended.length > 0) continue
      // An apply may have made a dependant ready.
      const more = await this.startReady()
      if (more) return more
      const plan = await this.scheduleNow()
      const view = await queryState({ projectDir: this.input.projectDir })
      const byId = new Map(view.tasks.map((t) => [t.id, t]))
      for (const held of plan.held) {
        if (held.kind === 'escalated') {
          const e = this.escalationOf(held.taskId)
          if (e) this.skip(byId.get(held.taskId)!, this.escalatedWhy(held.taskId, e))
        } else if (held.kind === 'waits-for-person') this.skip(byId.get(held.taskId)!, held.reason)
      }
      if (this.jobs.size === 0 && this.removing.size === 0) {
        const next = await queryNext({ projectDir: this.input.projectDir })
        if (next.action === 'blocked') return { status: 'failed', message: next.reason, taskId: null }
        return this.endOfQueue()
      }
      if (this.train.moves()) continue
      const checking = this.train.checking()
      if (
        this.ended.length === 0 &&
        !checking &&
        this.removing.size === 0 &&
        ![...this.jobs.values()].some((j) => j.state === 'running')
      ) {
        const stuck = [...this.jobs.keys()].join(', ')
        return {
          status: 'failed',
          message: `${stuck} finished but cannot merge: ${plan.mergeHeld.map((h) => `${h.taskId} ${h.reason}`).join(' ')}`,
          taskId: null,
        }
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve
        if (this.poked || this.ended.length > 0 || signal.aborted || this.budgetHit) resolve()
      })
      this.wake = null
    }
  }

  private nudge(): void {
    this.poked = true
    this.wake?.()
  }

  /**
   * Starts the ready tasks the free slots allow (a slot is held while a task runs in its lane, not while it waits in
   * the merge train), each in a lane folder of its own (laneFolderFor).
   */
  private async startReady(): Promise<Finish | null> {
    if (this.input.signal.aborted || this.budgetHit) return null
    const view = await queryState({ projectDir: this.input.projectDir })
    const byId = new Map(view.tasks.map((t) => [t.id, t]))
    const jobs = [...this.jobs.values()]
    const finished = new Set(jobs.filter((j) => j.state === 'finished').map((j) => j.task.id))
    const plan = schedule({
      tasks: queueForStarts(tasksInBuildOrder(view), finished),
      merged: this.merged,
      inLanes: jobs
        .filter((j) => j.state === 'running')
        .map((j) => ({ taskId: j.task.id, lane: j.slot, state: 'running' as const })),
      escalated: new Set(view.tasks.filter((t) => this.escalationOf(t.id)).map((t) => t.id)),
      skipped: new Set(),
      parallel: this.parallel,
    })
    for (const start of plan.start) {
      const folder = laneFolderFor(start.lane, this.foldersInUse(), this.parallel)
      if (folder === null && !this.spares?.count) break
      const over = await this.checkBudget(start.taskId)
      if (over) return over
      const spare = this.spares?.take() ?? null
      await this.startJob(byId.get(start.taskId)!, start.lane, spare?.marker.lane ?? folder!, spare)
    }
    this.makeSpare(plan.held.filter((h) => h.kind === 'no-free-lane' || h.kind === 'waits-for-merge').length)
    return null
  }

  /** The lane numbers taken: running and finished tasks' lanes, lanes being removed, spares. */
  private foldersInUse(): Set<number> {
    return new Set([
      ...[...this.jobs.values()].map((j) => j.lane),
      ...this.removing.keys(),
      ...(this.spares?.numbers() ?? []),
    ])
  }

  /** A spare lane for the tasks that start next, made now when `waiting` tasks need more (wantsSpare decides). */
  private makeSpare(waiting: number): void {
    const { spares } = this
    if (!spares || this.input.signal.aborted || this.budgetHit) return
    const jobs = [...this.jobs.values()]
    const inUse = this.foldersInUse()
    // A task starting in its lane (its lane made, its first snapshot not yet taken) counts as a lane being made.
    const beingMade =
      jobs.filter((j) => j.state === 'running' && !j.startedUp).length + (spares.isMaking() ? 1 : 0)
    if (
      !wantsSpare({ parallel: this.parallel, waiting, spares: spares.count, beingMade, folders: inUse.size })
    )
      return
    const lane = laneFolderFor(1, inUse, this.parallel)
    if (lane !== null) spares.make(lane, this.integration)
  }

  /** The scheduler's answer for the queue as it is now and the lanes as they are. */
  private async scheduleNow(): Promise<Schedule> {
    const view = await queryState({ projectDir: this.input.projectDir })
    const escalated = new Set(view.tasks.filter((t) => this.escalationOf(t.id)).map((t) => t.id))
    return schedule({
      tasks: tasksInBuildOrder(view),
      merged: this.merged,
      inLanes: [
        ...[...this.jobs.values()].map((j) => {
          const early = this.train.has(j) || this.mergesEarly(j)
          const finishedAt = j.finishedAt ?? (early ? j.gatheredAt : undefined)
          return {
            taskId: j.task.id,
            lane: j.lane,
            // The train merges several at once; the scheduler's queue reads its head as the one merging, and a task
            // whose lane is judging its work as finished (it joins the train meanwhile).
            state: this.train.isHead(j)
              ? ('merging' as const)
              : finishedAt === undefined
                ? j.state
                : ('finished' as const),
            ...(finishedAt === undefined ? {} : { finishedAt }),
          }
        }),
        // A lane being removed is not free yet: held by a placeholder that is no queue task (unless its job, being
        // applied, still holds it).
        ...[...this.removing.keys()]
          .filter((lane) => ![...this.jobs.values()].some((j) => j.lane === lane))
          .map((lane) => ({
            taskId: `(lane ${lane} being removed)`,
            lane,
            state: 'running' as const,
          })),
      ],
      escalated,
      skipped: new Set(),
      parallel: this.parallel,
    })
  }

  /**
   * The integration state the first lanes start from: the folder as it is. Its latest snapshot when nothing changed
   * since, else a manual snapshot (the first apply checks the folder against it for the user's edits).
   */
  private async startingPoint(): Promise<string> {
    const status = await this.engine.status()
    if (status.position && !status.dirty) return status.position.commit
    const saved = await this.engine.save({ kind: 'manual', message: 'before a build with lanes' })
    // No task's snapshot, so no `snapshot.created` (a loop event of a task number): the timeline reads the store.
    return saved.commit
  }

  /**
   * Lanes an earlier build left (killed, or a host that died) are removed first: this build holds the project's task
   * lock, so no other build uses them, and their snapshots are in the store already (refs/lanes/N/*). A folder
   * without Ralph's marker is left alone (removeLane refuses it; the build fails on that lane number, saying why).
   */
  private async removeLeftovers(): Promise<void> {
    for (const left of await listLanes(this.appDataDir, this.laneProject)) {
      if (left.state === 'not-ralphs') continue
      const removed = await removeLane(this.appDataDir, this.laneProject, left.lane)
      if (removed.removed !== 'nothing')
        this.input.logger.warn(
          `Removed lane ${left.lane} (${left.state}) an earlier build left: ${removed.dir}`,
        )
    }
  }

  /** The next task number, never reused: recorded in the folder's task counter at once (a killed build keeps it). */
  private async reserveNumber(): Promise<number> {
    const state = new RalphState(this.input.projectDir)
    const next = Math.max(this.lastReserved + 1, await nextTaskNumber(state, this.engine))
    await state.setTaskCounter(next)
    this.lastReserved = next
    return next
  }

  private timeBudget(): ReturnType<typeof setTimeout> | null {
    const minutes = this.budget.maxMinutes
    if (minutes == null) return null
    const timer = setTimeout(
      () => {
        this.budgetHit = { kind: 'time', used: minutes, limit: minutes }
        for (const job of this.jobs.values())
          job.controller.abort(new AppError('cancelled', 'The build reached its time budget.'))
        this.nudge()
      },
      Math.max(0, this.started + minutes * 60_000 - this.now()),
    )
    timer.unref?.()
    return timer
  }

  /**
   * Whether a job still running joins the merge train now: its lane's loop ended with its work snapshotted and its
   * verification's evidence is gathered, so its folder is free while the model judges.
   */
  private mergesEarly(job: LaneJob): boolean {
    return (
      job.state === 'running' &&
      job.gatheredAt !== undefined &&
      job.run?.postCommit != null &&
      job.outcome === null &&
      !this.input.signal.aborted
    )
  }

  private runningIds(): string {
    return [...this.jobs.keys()].join(', ') || 'the next task'
  }

  // ---- a lane's job (background: it writes only its lane and refs/lanes/N/*) ----

  private async startJob(task: TaskView, slot: number, lane: number, spare: Lane | null): Promise<void> {
    const memory = this.memory.get(task.id) ?? (await this.firstMemory(task))
    memory.attempts = { ...memory.attempts, attempts: memory.attempts.attempts + 1 }
    this.memory.set(task.id, memory)
    const controller = new AbortController()
    if (this.input.signal.aborted) controller.abort(this.input.signal.reason)
    const resumed = await this.kept.resume(task, this.integration)
    const job: LaneJob = {
      task,
      lane,
      slot,
      number: await this.reserveNumber(),
      base: this.integration,
      start: resumed?.commit ?? this.integration,
      resumes: resumed?.kept ?? null,
      attempts: memory.attempts,
      mergeAttempt: memory.mergeAttempt,
      state: 'running',
      controller,
      spare,
      handle: null,
      run: null,
      outcome: null,
      actions: [],
      error: null,
      counted: false,
      done: Promise.resolve(),
    }
    this.jobs.set(task.id, job)
    this.emit({
      type: 'build.lane',
      taskId: task.id,
      lane,
      task: job.number,
      attempt: memory.attempts.attempts,
      base: job.base,
    })
    const feedback = memory.feedback + (resumed ? RESUMED_FEEDBACK : '')
    job.done = this.runJob(job, feedback)
      .catch((err: unknown) => {
        job.error = err
      })
      .finally(() => {
        this.ended.push(job)
        this.nudge()
      })
  }

  /** A task's first lane: failures of earlier builds count (their tombstones), as in the serial build. */
  private async firstMemory(task: TaskView): Promise<TaskMemory> {
    const view = await queryState({ projectDir: this.input.projectDir })
    const tombstones = view.tombstones.filter((r) => r.id === task.id)
    const failures =
      this.input.escalations?.countFailures(this.input.projectDir, task.id, tombstones) ?? tombstones.length
    return {
      attempts: freshAttempts(failures),
      feedback: task.reject ? `# An earlier attempt was rejected\n\n${task.reject}\n` : '',
      mergeAttempt: 1,
    }
  }

  private async runJob(job: LaneJob, feedback: string): Promise<void> {
    const { input } = this
    const onAbort = () => job.controller.abort(input.signal.reason)
    input.signal.addEventListener('abort', onAbort, { once: true })
    try {
      // The task's parse starts now: its lane is made while the model answers (earlyParse.ts).
      job.parse = this.parseEarly(job)
      const lane = job.spare
        ? await claimLane(job.spare, job.number, job.start)
        : await createLane({
            appDataDir: this.appDataDir,
            projectId: this.laneProject,
            projectDir: input.projectDir,
            lane: job.lane,
            task: job.number,
            base: job.start,
            logger: input.logger,
          })
      job.handle = lane
      // The lane's loop would write a history line for "task N-1" from the base's last task: the build writes the
      // merged task's line itself (after its apply), so the lane starts with no previous task to describe.
      const laneState = new RalphState(lane.workDir)
      await laneState.write('summary', '')
      await laneState.write('task', '')
      const parseAhead = await job.parse
      const run = await laneRunnerFor(input.workers, {
        taskId: job.task.id,
        attempt: job.attempts.attempts,
        criteria: job.task.accept.map((c) => `${c.ref} ${c.kind}: ${c.text}`),
        emit: (event) => this.emit(event),
      })({
        lane,
        task: job.number,
        projectDir: input.projectDir,
        message: taskMessage(job.task),
        taskContext: taskContext(job.task, job.attempts.attempts),
        feedback,
        model: input.model,
        fastModel: input.fastModel ?? null,
        maxIterations: input.maxIterations,
        ...(input.engine ? { engine: input.engine } : {}),
        signal: job.controller.signal,
        runs: input.runs,
        projectId: input.projectId,
        prices: input.prices,
        contextWindows: input.contextWindows,
        waitForLimits: input.waitForLimits,
        env: input.env,
        mcpServers: input.mcpServers ?? null,
        logger: input.logger,
        emit: (event) => {
          if (event.type === 'task.started' && !event.continued) {
            this.emit(
              tagLane(
                {
                  type: 'build.attempt',
                  taskId: job.task.id,
                  name: job.task.name,
                  attempt: job.attempts.attempts,
                  task: event.task,
                },
                job.lane,
              ),
            )
          }
          this.emit(tagLane(event, job.lane))
          // Its task-N-pre is taken: its lane now waits for the model, and the build may make a spare.
          if (event.type === 'snapshot.created' && !job.startedUp) {
            job.startedUp = true
            this.nudge()
          }
        },
        onTextDelta: input.onTextDelta,
        ...(parseAhead ? { parseAhead } : {}),
      })
      job.run = run
      job.outcome =
        this.runOutcome(run.run) ??
        (await this.verifyWork(job.task, run, job.attempts, {
          projectDir: lane.workDir,
          // Read-only use: a lane's engine never prunes (its objects are borrowed).
          engine: new SnapshotEngine({ projectDir: lane.workDir, logger: input.logger }),
          env: { ...(input.env ?? process.env), ...laneEnv(lane.marker.lane) },
          onNonce: (nonce) => (job.nonce = nonce),
          onGathered: (nonce) => {
            job.nonce = nonce
            job.gatheredAt = this.now()
            this.nudge()
          },
        }))
    } finally {
      input.signal.removeEventListener('abort', onAbort)
    }
  }

  /**
   * The task's parse, started before its lane is made, with what the folder holds now (the lane's base); null when a
   * worker runs the lane (it parses in its own loop) or the parse could not start (the lane's loop parses).
   */
  private async parseEarly(job: LaneJob): Promise<EarlyParse | null> {
    const { input } = this
    if (input.workers) return null
    try {
      return new EarlyParse({
        message: taskMessage(job.task),
        context: parseContext(await this.parseBaseAt(job.base), job.number),
        model: input.fastModel ?? input.model,
        signal: job.controller.signal,
        prices: input.prices,
        logger: input.logger,
      })
    } catch (err) {
      noteFailure(input.logger, `${job.task.id}: its parse could not start before its lane`, err)
      return null
    }
  }

  /** What the parses of tasks starting from `base` are told: one look at the folder for all of them. */
  private parseBaseAt(base: string): Promise<ParseBase> {
    if (this.parseBaseOf?.base !== base) {
      // A lane starts with no summary of a task before it (runJob writes it empty).
      const look = new RalphState(this.input.projectDir)
        .plan()
        .then((plan) => parseBase(this.input.projectDir, '', plan))
      this.parseBaseOf = { base, look }
    }
    return this.parseBaseOf.look
  }

  /** A parse started early that the lane's loop never took (it ended first): its usage recorded and counted. */
  private async settleEarlyParse(job: LaneJob): Promise<void> {
    const early = await job.parse
    for (const entry of (await early?.untaken()) ?? []) {
      this.costUsd += entry.costUsd
      try {
        this.input.runs.recordUsage({ ...entry, runId: job.run?.runId ?? null, task: job.number })
      } catch (err) {
        noteFailure(this.input.logger, `The usage of ${job.task.id}'s parse could not be recorded`, err)
      }
    }
  }

  // ---- the loop's side: decisions and their effects on the user's folder ----

  /** A job's background work ended: decide as the serial build does, or queue the task for its merge. */
  private async settle(job: LaneJob): Promise<Finish | null> {
    const { task } = job
    this.count(job)
    if (job.error !== null || job.run === null || job.outcome === null) {
      // Stopped: the job stays for endAllLanes, which keeps its lane's work before removing the lane.
      if (this.input.signal.aborted || this.budgetHit) return null
      await this.dropJob(job)
      if (isAppError(job.error, 'cancelled')) return null
      return {
        status: 'failed',
        message: `${task.id} could not run in lane ${job.lane}: ${(job.error as Error | null)?.message ?? 'it ended without a result'}`,
        taskId: task.id,
      }
    }
    if (this.budgetHit) return null
    const outcome = job.outcome
    if ('status' in outcome) {
      await this.dropJob(job)
      return outcome
    }
    const decision = decideAttempt(task.id, job.attempts, outcome, {
      maxFailures: this.maxFailures,
      mode: this.mode,
    })
    this.memory.get(task.id)!.attempts = decision.attempts
    if (waitsForMerge(decision.actions) && job.run.postCommit !== null) {
      job.state = 'finished'
      job.finishedAt = this.now()
      job.actions = decision.actions
      job.attempts = decision.attempts
      // Already in the train (it joined while its lane judged): it may be applied now.
      this.train.settled(job)
      return null
    }
    // Not to merge: out of the train first (it may have joined while its lane judged).
    await this.train.drop(job)
    const after = await this.carryOut(task, decision.actions, {
      attempts: decision.attempts,
      doneAt: job.run.postCommit,
      // The user's folder never held the lane's work: nothing to roll back.
      firstPre: null,
      outcome,
    })
    await this.dropJob(job)
    return this.afterActions(task, after)
  }

  private afterActions(task: TaskView, after: Awaited<ReturnType<BuildCore['carryOut']>>): Finish | null {
    if (after.kind === 'again') {
      this.memory.get(task.id)!.feedback = after.feedback
      return null
    }
    if (after.kind === 'next') return null
    // An escalation waits for a person, but only that task and those that depend on it (as in the serial build).
    if (after.finish.status === 'escalated') {
      this.escalatedHere.add(task.id)
      return null
    }
    return after.finish
  }

  // ---- the merge train (mergeTrain.ts decides): candidates verified at once, applied one at a time ----

  /**
   * One turn of the train: its head applied or failed (one per turn, so lanes start between applies), stale cars
   * merged again onto the chain as it now is, and newly finished tasks merged onto its tip (their verifications
   * on the merged tree start at once, each in its own lane).
   */
  private async trainTurn(plan: Schedule): Promise<Finish | null> {
    const broken = this.train.broken()
    if (broken) return { status: 'failed', message: broken.error!, taskId: broken.taskId }
    const step = this.train.head()
    if (step === 'apply' || step === 'fail') {
      const car = this.train.cars.shift()!
      const end = step === 'apply' ? await this.applyHead(car) : await this.failHead(car)
      if (end) return end
    }
    if (this.train.cars.length === 0) this.train.root = this.integration
    await this.train.restale()
    for (const id of plan.mergeQueue) {
      // A lane that ended meanwhile frees its slot first: the next task starts before more merges (the loop's next
      // turn adds the rest).
      if (this.ended.length > 0) break
      const job = this.jobs.get(id)
      if (!job || this.train.has(job)) continue
      if (job.state === 'finished') await this.train.add(job)
      else if (this.mergesEarly(job)) await this.train.add(job, true)
    }
    return null
  }

  /** The head, verified on the integration state (or with nothing to verify): applied to the user's folder. */
  private async applyHead(car: TrainCar): Promise<Finish | null> {
    const { job } = car
    const actions =
      car.verdict?.outcome === 'NEEDS_HUMAN'
        ? decideAttempt(job.task.id, job.attempts, car.verdict, {
            maxFailures: this.maxFailures,
            mode: this.mode,
          }).actions
        : job.actions
    const before = this.integration
    // Out of the train with its verifications done: its folder is not needed any more.
    this.releaseLane(job)
    const end = await this.apply(job, car.commit!, actions, car.check !== 'not-needed')
    if (this.integration !== before)
      await this.train.applied(car.commit!, this.integration, new Set(keptInFolder(this.notifications)))
    return end
  }

  /** The head conflicted with, or failed on, the integration state itself: rerun once on it, then escalate. */
  private async failHead(car: TrainCar): Promise<Finish | null> {
    const { job } = car
    const { task } = job
    const merge = car.merge!
    const step = nextAfterMerge({
      attempt: job.mergeAttempt,
      outcome: merge,
      ...(merge.kind === 'clean' && car.verdict?.outcome === 'FAIL'
        ? { verdict: { verdict: 'FAIL' as const, reason: car.verdict.reason } }
        : {}),
    })
    if (step.do === 'rerun') {
      this.emit({ type: 'build.rerun', taskId: task.id, task: job.number, reason: step.feedback })
      const memory = this.memory.get(task.id)!
      memory.feedback = `# Run again on the new base\n\n${step.feedback}\n`
      memory.mergeAttempt = job.mergeAttempt + 1
    } else if (step.do === 'escalate') {
      const message = `${task.id} ${step.reason}`
      this.input.escalations?.escalate({
        projectId: this.input.projectId ?? null,
        projectPath: this.input.projectDir,
        taskId: task.id,
        kind: 'failures',
        message,
        failures: job.attempts.failures,
        rolledBackTo: null,
        safetyTag: null,
      })
      await this.notify('escalation', task.id, message)
      this.escalatedHere.add(task.id)
    } else throw new AppError('internal', `${task.id}: a failed merge cannot ${step.do}.`)
    await this.dropJob(job)
    return null
  }
  /** Applies the merged commit to the user's folder as task N (laneApply.ts), then accepts (or leaves it for a person). */
  private async apply(
    job: LaneJob,
    commit: string,
    actions: BuildAction[],
    verifiedAgain: boolean,
  ): Promise<Finish | null> {
    const { task } = job
    const applied = await applyMergedTask({
      engine: this.engine,
      projectDir: this.input.projectDir,
      task,
      number: job.number,
      lane: job.lane,
      commit,
      base: this.integration,
      keepFolder: keptInFolder(this.notifications),
      signal: this.input.signal,
      logger: this.input.logger,
      emit: (event) => this.emit(event),
      ...(this.input.answerUserEdits ? { answerUserEdits: this.input.answerUserEdits } : {}),
    })
    if (applied.kind !== 'applied') {
      await this.dropJob(job)
      if (applied.kind === 'stopped')
        return {
          status: 'stopped',
          message: `${stopWords(this.input.signal, `while the build asked about your edits before applying ${task.id}`)} Nothing was overwritten; it stays pending.`,
          taskId: task.id,
        }
      await this.notify('needs-human', task.id, applied.message)
      return { status: 'paused', message: applied.message, taskId: task.id }
    }
    this.integration = applied.post
    this.merged.add(task.id)
    this.emit({
      type: 'build.merged',
      taskId: task.id,
      task: job.number,
      commit: applied.post,
      verifiedAgain,
    })
    const state = new RalphState(this.input.projectDir)
    await state.appendHistory(historyLine(job.number, await state.read('summary')))
    const after = await this.carryOut(task, actions, {
      attempts: job.attempts,
      doneAt: applied.post,
      firstPre: null,
      outcome: { kind: 'verified', outcome: 'PASS' },
    })
    await this.dropJob(job)
    return this.afterActions(task, after)
  }

  /**
   * The job is over: its lane is removed (its snapshots stay in the project's store as refs/lanes/N/*), off the
   * loop's path: the lane number stays taken until its folder is gone.
   */
  private async dropJob(job: LaneJob): Promise<void> {
    // Its verification on a merged tree (run in its folder) ends before the folder goes.
    await this.train.drop(job)
    job.controller.abort(new AppError('cancelled', 'The lane is no longer needed.'))
    await job.done
    await this.settleEarlyParse(job)
    if (this.jobs.get(job.task.id) === job) this.jobs.delete(job.task.id)
    this.releaseLane(job)
    await this.kept.discardResumed(job)
  }

  /**
   * Starts removing the job's lane folder, once: when the job is dropped, or as its merged work is applied (the
   * apply reads the project's store, not the lane, so the removal runs beside it).
   */
  private releaseLane(job: LaneJob): void {
    if (job.released) return
    job.released = true
    const removal = this.removeLaneOf(job).finally(() => {
      this.removing.delete(job.lane)
      this.nudge()
    })
    this.removing.set(job.lane, removal)
  }

  private async removeLaneOf(job: LaneJob): Promise<void> {
    try {
      await removeLane(this.appDataDir, this.laneProject, job.lane, { measure: false })
    } catch (err) {
      noteFailure(this.input.logger, `Lane ${job.lane} of ${job.task.id} could not be removed`, err)
    }
  }

  /**
   * The build ends (Stop, a budget stop, a pause, a failure): every lane's loop is stopped and waited for, its work
   * as it is kept in the project's store (refs/lanes/N/stopped) for the next build to resume, and its lane removed.
   */
  private async endAllLanes(): Promise<void> {
    await this.spares?.removeAll()
    await Promise.all(this.removing.values())
    await this.train.cancelAll()
    const jobs = [...this.jobs.values()]
    for (const job of jobs)
      job.controller.abort(this.input.signal.reason ?? new AppError('cancelled', 'The build ended.'))
    await Promise.all(jobs.map((j) => j.done))
    for (const job of jobs) {
      this.count(job)
      await this.settleEarlyParse(job)
      // A released lane's work was being applied: it is in the store as refs/lanes/N/merged.
      if (job.released) continue
      if (job.handle) await this.kept.keep(job)
      await this.removeLaneOf(job)
    }
    await Promise.all(this.removing.values())
    this.jobs.clear()
  }

  private count(job: LaneJob): void {
    if (job.counted || !job.run) return
    job.counted = true
    this.costUsd += job.run.costUsd
  }
}
