import { createHash } from 'node:crypto'

/** A signature of one iteration: the names and canonical arguments of its tool calls, in order. */
export function iterationSignature(calls: { name: string; canonicalArgs: string }[]): string {
  const hash = createHash('sha256')
  for (const call of calls) hash.update(call.name).update('\0').update(call.canonicalArgs).update('\n')
  return calls.length === 0 ? 'none' : hash.digest('hex').slice(0, 16)
}

export type StallVerdict =
  | { kind: 'ok' }
  | { kind: 'repeat'; count: number }
  | { kind: 'no-progress'; count: number }

/**
 * Counts consecutive identical iteration signatures and iterations without any file change (seed 000 §8).
 * The loop decides what to do; this only keeps score.
 */
export class StallDetector {
  private lastSignature: string | null = null
  private repeats = 0
  private idle = 0

  constructor(
    private readonly threshold: number,
    private readonly noProgressLimit: number,
  ) {}

  record(signature: string, madeProgress: boolean): StallVerdict {
    this.repeats = signature === this.lastSignature ? this.repeats + 1 : 1
    this.lastSignature = signature
    this.idle = madeProgress ? 0 : this.idle + 1
    if (this.repeats >= this.threshold) return { kind: 'repeat', count: this.repeats }
    if (this.idle >= this.noProgressLimit) return { kind: 'no-progress', count: this.idle }
    return { kind: 'ok' }
  }

  reset(): void {
    this.lastSignature = null
    this.repeats = 0
    this.idle = 0
  }
}
