// A task's cost and token caps as its model calls happen: the spend so far, the 75% warning, the stop at 100%, and
// each next call bounded by what the rest of the cap buys. The arithmetic is costCap.ts's; this keeps the score.
import { priceFor, type ModelConfig, type PriceOverrides } from '../llm'
import type { RunsRepo } from '../store'
import {
  CostCap,
  CostCapReached,
  nextCallBound,
  nextCallTokenBound,
  TokenCap,
  TokenCapReached,
} from './costCap'
import type { LoopRecorder } from './recorder'

export class TaskCaps {
  private readonly costCap: CostCap | null
  private readonly tokenCap: TokenCap | null
  /** Aborted when a cap is reached, so a checkpoint request in flight cannot swallow the stop. */
  private readonly reached = new AbortController()
  /**
   * An engine's calls it bills later (Claude Code prices a session only at its end), at Ralph's price, per
   * "iteration:session" until that session's own total is recorded: the cap counts them as they happen.
   */
  private readonly engineEstimates = new Map<string, number>()

  constructor(
    private readonly o: {
      maxCostUsd?: number
      maxTokens?: number
      rec: LoopRecorder
      runs: RunsRepo
      prices?: PriceOverrides
    },
  ) {
    this.costCap = o.maxCostUsd === undefined ? null : new CostCap(o.maxCostUsd)
    this.tokenCap = o.maxTokens === undefined ? null : new TokenCap(o.maxTokens)
  }

  /** Whether the task has a cap at all. */
  get capped(): boolean {
    return this.costCap !== null || this.tokenCap !== null
  }

  /** The caps as an event or a run row carries them. */
  fields(): { costCapUsd?: number; tokenCap?: number } {
    return {
      ...(this.costCap ? { costCapUsd: this.costCap.capUsd } : {}),
      ...(this.tokenCap ? { tokenCap: this.tokenCap.capTokens } : {}),
    }
  }

  /** The cost cap as an engine session's credential proxy holds it; null without one. */
  costCapForEngine(): { capUsd: number; spentUsd: () => number } | null {
    const cap = this.costCap
    return cap ? { capUsd: cap.capUsd, spentUsd: () => this.spentUsd() } : null
  }

  /** The signal an iteration's work runs under: a cap stops its tools as well as its model calls. */
  signal(base: AbortSignal): AbortSignal {
    return this.capped ? AbortSignal.any([base, this.reached.signal]) : base
  }

  /** The task's caps kept with its run: the card shows the spend (or tokens) against them, after a reload too. */
  record(): void {
    if (this.capped) this.o.rec.runUpdated(this.fields())
  }

  /** An engine's call it bills later, counted at Ralph's price until `settled` (its session's total recorded). */
  estimate(key: string, costUsd: number): void {
    this.engineEstimates.set(key, (this.engineEstimates.get(key) ?? 0) + costUsd)
  }

  settled(key: string): void {
    this.engineEstimates.delete(key)
  }

  /**
   * The task's spend against its caps, after each model call: the warning event the first time it reaches 75% of
   * one, and CostCapReached / TokenCapReached (with the cap's signal aborted) once it reaches 100%.
   */
  check(iteration: number | null): void {
    const { rec } = this.o
    const at = iteration ? { iteration } : {}
    if (this.costCap) {
      const spentUsd = this.spentUsd()
      const check = this.costCap.check(spentUsd)
      if (check.warn) {
        const capUsd = this.costCap.capUsd
        rec.emit({ type: 'budget.warning', task: rec.task, ...at, spentUsd, capUsd, message: check.warn })
      }
      if (check.stop) {
        this.reached.abort()
        throw new CostCapReached(spentUsd, this.costCap.capUsd)
      }
    }
    if (this.tokenCap) {
      const usedTokens = this.usedTokens()
      const capTokens = this.tokenCap.capTokens
      const check = this.tokenCap.check(usedTokens)
      if (check.warn)
        rec.emit({
          type: 'budget.warning',
          task: rec.task,
          ...at,
          usedTokens,
          capTokens,
          message: check.warn,
        })
      if (check.stop) {
        this.reached.abort()
        throw new TokenCapReached(usedTokens, capTokens)
      }
    }
  }

  /**
   * Before each model call under a cap: the answer's max_tokens bounded by what the rest of the cap buys (the
   * tighter of the two caps), and a call refused when its prompt alone would pass a cap (costCap.ts).
   */
  bound(model: ModelConfig, promptTokens: number): number | null {
    let bound: number | null = null
    if (this.costCap) {
      const capUsd = this.costCap.capUsd
      const spentUsd = this.o.rec.cost()
      const price = priceFor(model.model, this.o.prices)
      const byCost = nextCallBound({ capUsd, spentUsd, promptTokens, price })
      if ('refused' in byCost) {
        this.reached.abort()
        throw new CostCapReached(spentUsd, capUsd, byCost.refused)
      }
      bound = byCost.maxOutputTokens
    }
    if (this.tokenCap) {
      const usedTokens = this.usedTokens()
      const capTokens = this.tokenCap.capTokens
      const byTokens = nextCallTokenBound({ capTokens, usedTokens, promptTokens })
      if ('refused' in byTokens) {
        this.reached.abort()
        throw new TokenCapReached(usedTokens, capTokens, byTokens.refused)
      }
      bound = bound === null ? byTokens.maxOutputTokens : Math.min(bound, byTokens.maxOutputTokens)
    }
    return bound
  }

  /** The task's spend so far: its recorded calls, and an engine's calls it bills later at Ralph's price. */
  private spentUsd(): number {
    let spentUsd = this.o.rec.cost()
    for (const estimate of this.engineEstimates.values()) spentUsd += estimate
    return spentUsd
  }

  /** The tokens the task's model calls used so far: every prompt token and every answer token. */
  private usedTokens(): number {
    const { rec, runs } = this.o
    if (!rec.runId) return 0
    const cost = runs.costForRun(rec.runId)
    return cost.inputTokens + cost.outputTokens
  }
}
