// Where the wall time of a build goes, read from its stamped NDJSON events and the scripted model's calls: the
// CLI's start and end, each lane attempt's phases (made, before its first call, the model, the harness between
// calls, waiting for the build's loop, the serial merge: merge, verification on the merged tree, apply), and how
// many model calls were in flight over the build (4 lanes at work keep 4 in flight).
import type { StampedEvent, BuildRun } from './bench-parallel-build'
import type { ModelCall } from './bench-parallel-model'

export interface LaneAttempt {
  lane: number
  task: number
  taskId: string
  /** ms from the build's start. */
  laneAt: number
  /** build.lane → task.started: the lane's folder made, its state reset, the lane's task begun. */
  madeMs: number
  /** task.started → its first model call (the task-N-pre snapshot, the lane's setup, the prompt). */
  beforeModelMs: number
  calls: number
  /** calls × the model's latency. */
  modelMs: number
  /** First call → verified in the lane, less the model's time: tools, gates, task-N-post, the criteria's commands. */
  harnessMs: number
  /** Verified in its lane → the build's loop takes it up (other merges, lanes being started, the loop's turn). */
  waitMs: number
  /** The loop's merge of it: the merge, the verification on the merged tree (when run), the apply. */
  mergeMs: number
  verifiedAgain: boolean
  /**
   * The verification on the merged tree, as far as it outlasted the lane's own: it starts while the model judges the
   * lane's verification (its events are held until that verdict), so this is its end less the lane's verdict.
   */
  verifyAgainMs: number
  /** Of the merge: its end (verified again, or taken up) → the apply's snapshots in the user's folder done. */
  applyMs: number
  /** build.merged → the loop's next turn (history, accept, the lane removed, the next schedule). */
  afterMergeMs: number
  end: 'merged' | 'rerun' | 'failed' | 'other'
}

export interface Profile {
  wallMs: number
  /** Spawn → build.started: the CLI's start. */
  startMs: number
  /** build.started → the first lane (or the first task): the starting snapshot, the plan. */
  beforeFirstLaneMs: number
  /** The last build.merged (or task end) → the process's exit. */
  tailMs: number
  /** build.finished → the process's exit. */
  exitMs: number
  attempts: LaneAttempt[]
  /** Share of the wall time with k model calls in flight, k = 0…max. */
  inFlight: number[]
  modelCalls: number
  /** The sum of the main loop's serial merges. */
  mergeSerialMs: number
}

const at = (run: BuildRun, e: StampedEvent) => e.at - run.startedAt

/** The profile of one build; `calls` are the scripted model's (only this build's are read, by time). */
export function profileBuild(run: BuildRun, calls: ModelCall[], latencyMs: number): Profile {
  const events = run.events
  const t = (e: StampedEvent | undefined) => (e ? at(run, e) : NaN)
  const mine = calls
    .filter((c) => c.at >= run.startedAt && c.at <= run.startedAt + run.wallMs)
    .map((c) => ({ ...c, at: c.at - run.startedAt }))
  const find = (from: number, pred: (e: StampedEvent['event']) => boolean) =>
    events.find((e, i) => i >= from && pred(e.event))
  const started = events.find((e) => e.event.type === 'build.started')
  const firstLane = events.find((e) => e.event.type === 'build.lane' || e.event.type === 'task.started')
  const ends = events.filter((e) => ['build.merged', 'task.completed', 'task.failed'].includes(e.event.type))
  /** Events the build's loop emits itself (its turn ends at each). */
  const loopTurns = events.filter((e) =>
    ['build.merged', 'build.rerun', 'build.accepted', 'build.lane', 'build.skipped'].includes(e.event.type),
  )

  // A verdict call belongs to the task whose verification drew its nonce (its text may quote other tasks' criteria).
  const taskOfNonce = new Map(
    events
      .map((e) => e.event as { type: string; nonce?: string; taskId?: string })
      .filter((e) => e.type === 'verify.started' && e.nonce && e.taskId)
      .map((e) => [e.nonce!, e.taskId!] as const),
  )
  const attempts: LaneAttempt[] = []
  events.forEach((lane, i) => {
    const e = lane.event
    if (e.type !== 'build.lane') return
    const n = e.task!
    const taskStarted = find(i, (x) => x.type === 'task.started' && x.task === n)
    const completed = find(
      i,
      (x) => (x.type === 'task.completed' || x.type === 'task.failed') && x.task === n,
    )
    const endIndex = events.findIndex(
      (x, k) =>
        k > i &&
        ['build.merged', 'build.rerun'].includes(x.event.type) &&
        x.event.task === n &&
        x.event.taskId === e.taskId,
    )
    const end = endIndex === -1 ? undefined : events[endIndex]
    const from = completed ? events.indexOf(completed) : i
    const verified = find(from, (x) => x.type === 'verify.completed' && x.taskId === e.taskId)
    const laneNonce = (verified?.event as { nonce?: string } | undefined)?.nonce
    const key = (c: ModelCall) => c.at >= t(lane) && c.at <= (end ? t(end) : run.wallMs) && c.task !== null
    // The task's calls: its words in them (the parse, iterations and verdicts of this attempt's window).
    const wordsOfTask = mine.find((c) => key(c) && c.kind === 'parse')?.task
    const own = mine.filter(
      (c) =>
        key(c) &&
        (c.kind === 'verdict' ? taskOfNonce.get(c.nonce ?? '') === e.taskId : c.task === wordsOfTask),
    )
    // The lane's own calls: not the merged tree's verdicts, which may start before the lane's verdict is in.
    const inLane = own.filter(
      (c) => (!verified || c.at <= t(verified)) && (c.nonce === null || !laneNonce || c.nonce === laneNonce),
    )
    const firstCall = inLane[0]?.at ?? NaN
    const laneDone = t(verified ?? completed)
    // The loop takes the job up after its lane is verified and after its previous turn ended.
    const previousTurn = loopTurns.filter((x) => at(run, x) <= (end ? t(end) : Infinity) && x !== end).at(-1)
    const mergeStart = Math.max(laneDone, previousTurn ? t(previousTurn) : 0)
    const endAt = end ? events.indexOf(end) : -1
    const again = verified ? events.slice(events.indexOf(verified) + 1, endAt) : []
    const againStarted = again.find((x) => x.event.type === 'verify.started' && x.event.taskId === e.taskId)
    const againDone = again.find((x) => x.event.type === 'verify.completed' && x.event.taskId === e.taskId)
    const applied = again.find((x) => x.event.type === 'snapshot.created' && x.event.task === n)
    const nextTurn = loopTurns.find(
      (x) => end && at(run, x) >= t(end) && x !== end && x.event.type !== 'build.accepted',
    )
    attempts.push({
      lane: e.lane!,
      task: n,
      taskId: e.taskId!,
      laneAt: t(lane),
      madeMs: t(taskStarted) - t(lane),
      beforeModelMs: firstCall - t(taskStarted),
      calls: own.length,
      modelMs: inLane.length * latencyMs,
      harnessMs: laneDone - firstCall - inLane.length * latencyMs,
      waitMs: end ? mergeStart - laneDone : NaN,
      mergeMs: end ? t(end) - mergeStart : NaN,
      verifiedAgain: end?.event.type === 'build.merged' && end.event.verifiedAgain === true,
      verifyAgainMs: againStarted && againDone ? t(againDone) - t(verified!) : 0,
      applyMs: applied ? t(applied) - (againDone ? t(againDone) : mergeStart) : NaN,
      afterMergeMs: end && nextTurn ? t(nextTurn) - t(end) : NaN,
      end: !end
        ? completed?.event.type === 'task.failed'
          ? 'failed'
          : 'other'
        : end.event.type === 'build.merged'
          ? 'merged'
          : 'rerun',
    })
  })

  // Calls in flight over the wall time, in 10 ms steps.
  const step = 10
  const counts: number[] = []
  for (let s = 0; s < run.wallMs; s += step) {
    const k = mine.filter((c) => c.at <= s && s < c.at + latencyMs).length
    counts[k] = (counts[k] ?? 0) + 1
  }
  const total = counts.reduce((a, b) => a + (b ?? 0), 0)
  return {
    wallMs: run.wallMs,
    startMs: t(started),
    beforeFirstLaneMs: t(firstLane) - t(started),
    tailMs: run.wallMs - t(ends.at(-1)),
    exitMs: run.wallMs - t(events.find((e) => e.event.type === 'build.finished')),
    attempts,
    inFlight: Array.from(counts, (c) => (c ?? 0) / total),
    modelCalls: mine.length,
    mergeSerialMs: attempts.reduce((sum, a) => sum + (Number.isNaN(a.mergeMs) ? 0 : a.mergeMs), 0),
  }
}

const s = (ms: number) => (Number.isNaN(ms) ? '–' : (ms / 1000).toFixed(2))

/** The profile as lines for the console. */
export function profileLines(p: Profile, label: string): string[] {
  const lines = [
    `${label}: wall ${s(p.wallMs)} s; CLI start ${s(p.startMs)} s; before the first lane ${s(p.beforeFirstLaneMs)} s; ` +
      `after the last task ${s(p.tailMs)} s (of which after build.finished ${s(p.exitMs)} s); ${p.modelCalls} model calls`,
    `  model calls in flight (share of wall time): ${p.inFlight.map((f, k) => `${k}: ${(f * 100).toFixed(0)}%`).join(', ')}`,
  ]
  if (p.attempts.length === 0) return lines
  lines.push(
    `  ${'lane'.padEnd(5)}${'task'.padEnd(6)}${'start'.padStart(7)}${'made'.padStart(7)}${'→call'.padStart(7)}` +
      `${'calls'.padStart(6)}${'model'.padStart(7)}${'harness'.padStart(8)}${'wait'.padStart(7)}${'merge'.padStart(7)}` +
      `${'=again'.padStart(8)}${'+apply'.padStart(8)}${'+after'.padStart(8)}  end (seconds)`,
  )
  for (const a of p.attempts)
    lines.push(
      `  ${String(a.lane).padEnd(5)}${String(a.task).padEnd(6)}${s(a.laneAt).padStart(7)}${s(a.madeMs).padStart(7)}` +
        `${s(a.beforeModelMs).padStart(7)}${String(a.calls).padStart(6)}${s(a.modelMs).padStart(7)}` +
        `${s(a.harnessMs).padStart(8)}${s(a.waitMs).padStart(7)}${s(a.mergeMs).padStart(7)}` +
        `${s(a.verifyAgainMs).padStart(8)}${s(a.applyMs).padStart(8)}${s(a.afterMergeMs).padStart(8)}  ${a.end}` +
        `${a.verifiedAgain ? ' (verified again)' : ''}`,
    )
  lines.push(`  the loop's merges, serial: ${s(p.mergeSerialMs)} s in all`)
  return lines
}
