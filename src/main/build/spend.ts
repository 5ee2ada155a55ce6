import type { BuildBudgetStatus } from '../../shared/api/queue'
import type { BuildEvent } from './events'

/**
 * What a verification has spent so far, from its `verify.criterion` events: for one that is cancelled or fails
 * before its `verify.completed` (whose cost is the same sum).
 */
export function judgedCost(): { see(event: BuildEvent): void; usd(): number } {
  let usd = 0
  return {
    see: (event) => {
      if (event.type === 'verify.criterion') usd += event.verdict.costUsd
    },
    usd: () => Math.round(usd * 1e8) / 1e8,
  }
}

/**
 * What a panel build has spent, for its budget line: closed attempts and verifications, plus the open attempts (one
 * in a serial build, one per running lane in a parallel one). Pure arithmetic over the build's events; `runCost`
 * says what a lifecycle task's latest run has cost so far.
 */
export class BuildSpend {
  private closedUsd = 0
  private readonly openTasks = new Set<number>()
  private finalUsd: number | null = null
  private budget: { maxCostUsd: number | null; maxMinutes: number | null } | null = null
  private alerts: BuildBudgetStatus['alerts'] = []

  constructor(private readonly runCost: (task: number) => number) {}

  apply(event: BuildEvent): void {
    switch (event.type) {
      case 'build.started':
        this.budget = event.budget
        return
      case 'task.started':
        this.openTasks.add(event.task)
        return
      case 'task.completed':
      case 'task.failed':
        this.closedUsd += this.runCost(event.task)
        this.openTasks.delete(event.task)
        return
      // Each judged criterion as it is recorded (their sum is verify.completed's cost): a verification cancelled
      // midway (Stop, or a merge-train candidate gone stale) paid for the criteria judged before it, and counts.
      case 'verify.criterion':
        this.closedUsd += event.verdict.costUsd
        return
      case 'build.budget':
        this.alerts = [...this.alerts.filter((a) => a.kind !== event.kind), event]
        return
      case 'build.finished':
        this.finalUsd = event.costUsd
        this.openTasks.clear()
        return
    }
  }

  /** The budget, the spend and the alerts (one per kind, the latest); undefined before the build has started. */
  status(): BuildBudgetStatus | undefined {
    if (!this.budget) return undefined
    let open = 0
    for (const task of this.openTasks) open += this.runCost(task)
    const spentUsd = this.finalUsd ?? this.closedUsd + open
    const alerts = this.alerts.map(({ level, kind, used, limit, message }) => ({
      level,
      kind,
      used,
      limit,
      message,
    }))
    return { ...this.budget, spentUsd, alerts }
  }
}
