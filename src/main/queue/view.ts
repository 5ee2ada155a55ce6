import type { NextAction, QueueView, QueueWarning, Stage, TaskRecord, TaskView } from '../../shared/queue'
import { parseCriteria, untaggedWarning } from './criteria'
import { blockedBy, buildOrder, pendingIdsOf } from './order'
import type { QueueState } from './planFile'
import {
  currentSpec,
  issueRecords,
  specRecords,
  taskRecords,
  tombstoneRecords,
  type Located,
} from './records'

/** Seed 001 "Stage Logic", in its order. */
export function stageOf(state: QueueState): Stage {
  if (!state.exists || currentSpec(state) === null) return 'PLAN'
  const tasks = taskRecords(state)
  if (tasks.some((t) => t.rec.s === 'p')) return 'BUILD'
  if (tasks.some((t) => t.rec.s === 'd')) return 'VERIFY'
  if (issueRecords(state).length > 0) return 'INVESTIGATE'
  return 'COMPLETE'
}

export function taskView(t: Located<TaskRecord>, pendingIds: ReadonlySet<string>): TaskView {
  const r = t.rec
  return {
    id: r.id,
    spec: r.spec,
    name: r.name,
    notes: r.notes ?? null,
    accept: parseCriteria(r.accept),
    deps: r.deps ?? [],
    status: r.s === 'd' ? 'done' : 'pending',
    priority: r.priority ?? 'medium',
    doneAt: r.done_at ?? null,
    reject: r.reject ?? null,
    kill: r.kill ?? null,
    killLog: r.kill_log ?? null,
    parent: r.parent ?? null,
    createdFrom: r.created_from ?? null,
    supersedes: r.supersedes ?? null,
    blockedBy: blockedBy(r, pendingIds),
    line: t.line,
  }
}

/** What a person should know about the file beyond its malformed lines: duplicates, extra spec lines, untagged criteria, cycles. */
export function warningsOf(state: QueueState, stuck = buildOrder(taskRecords(state)).stuck): QueueWarning[] {
  const warnings: QueueWarning[] = []
  const specs = specRecords(state)
  for (const s of specs.slice(1)) {
    warnings.push({
      line: s.line,
      message: `A second spec line ("${s.rec.spec}") is ignored: the first one ("${specs[0]!.rec.spec}") is the active spec. Run \`ralph set-spec\` to keep one.`,
    })
  }
  for (const group of [taskRecords(state), issueRecords(state)]) {
    const firstLine = new Map<string, number | null>()
    for (const r of group) {
      if (!firstLine.has(r.rec.id)) {
        firstLine.set(r.rec.id, r.line)
        continue
      }
      warnings.push({
        line: r.line,
        message: `Duplicate id ${r.rec.id} (also on line ${firstLine.get(r.rec.id)}): both are loaded, but commands that name ${r.rec.id} refuse until one gets a new id in .ralph/plan.jsonl.`,
      })
    }
  }
  const tasks = taskRecords(state)
  for (const t of tasks) {
    for (const c of parseCriteria(t.rec.accept))
      if (!c.tagged) warnings.push({ line: t.line, message: untaggedWarning(t.rec.id, c) })
    if (t.rec.deps?.includes(t.rec.id))
      warnings.push({ line: t.line, message: `${t.rec.id} depends on itself and can never start.` })
  }
  if (stuck.length > 0) {
    warnings.push({
      line: null,
      message: `${stuck.map((t) => t.rec.id).join(', ')} can never start: their dependencies form a cycle. Edit their deps (ralph task edit) to break it.`,
    })
  }
  return warnings
}

export function queueView(state: QueueState): QueueView {
  const tasks = taskRecords(state)
  const pendingIds = pendingIdsOf(tasks)
  const { order, stuck } = buildOrder(tasks)
  return {
    exists: state.exists,
    spec: currentSpec(state),
    stage: stageOf(state),
    tasks: tasks.map((t) => taskView(t, pendingIds)),
    order: order.map((t) => t.rec.id),
    issues: issueRecords(state).map((i) => ({
      id: i.rec.id,
      spec: i.rec.spec,
      desc: i.rec.desc,
      line: i.line,
    })),
    tombstones: tombstoneRecords(state).map((r) => ({
      id: r.rec.id,
      doneAt: r.rec.done_at,
      reason: r.rec.reason,
      line: r.line,
    })),
    malformed: state.lines.flatMap((l) =>
      l.error !== undefined ? [{ line: l.line ?? 0, text: l.raw ?? '', error: l.error }] : [],
    ),
    warnings: warningsOf(state, stuck),
  }
}

/** `ralph query next`: the stage's next action and the item it acts on. */
export function nextAction(state: QueueState): NextAction {
  const stage = stageOf(state)
  const tasks = taskRecords(state)
  const pendingIds = pendingIdsOf(tasks)
  switch (stage) {
    case 'PLAN':
      return {
        action: 'plan',
        stage,
        reason: state.exists
          ? 'No spec is set: run `ralph set-spec FILE`, then add tasks.'
          : 'There is no .ralph/plan.jsonl yet: set a spec and add tasks.',
      }
    case 'BUILD': {
      const { order, stuck } = buildOrder(tasks)
      if (order.length > 0) return { action: 'build', stage, task: taskView(order[0]!, pendingIds) }
      return {
        action: 'blocked',
        stage,
        tasks: stuck.map((t) => taskView(t, pendingIds)),
        reason:
          'Every pending task waits for another pending task (a dependency cycle). Edit their deps to break it.',
      }
    }
    case 'VERIFY':
      return { action: 'verify', stage, task: taskView(tasks.find((t) => t.rec.s === 'd')!, pendingIds) }
    case 'INVESTIGATE': {
      const i = issueRecords(state)[0]!
      return {
        action: 'investigate',
        stage,
        issue: { id: i.rec.id, spec: i.rec.spec, desc: i.rec.desc, line: i.line },
      }
    }
    case 'COMPLETE':
      return { action: 'none', stage }
  }
}
