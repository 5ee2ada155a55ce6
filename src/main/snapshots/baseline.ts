import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import type { BaselineProgress, SnapshotMeta } from './types'
import type { SnapshotEngine } from './engine'
import { ifUnreadable, reportedElsewhere } from '../workspace'

/**
 * The background baseline of a project opened without snapshots (DESIGN.md §5), one per project folder in this
 * process. Any engine's save for the same folder (the loop's pre-task snapshot included) waits for it first, so
 * the slow first read of every file happens once, here, and the save after it is incremental.
 */
export interface BaselineJob {
  readonly done: Promise<SnapshotMeta | null>
  /** The latest progress; null until the baseline holds the store and starts listing files. */
  readonly progress: BaselineProgress | null
  cancel(): void
}

const jobs = new Map<string, BaselineJob>()

function keyOf(projectDir: string): string {
  const dir = resolve(projectDir)
  try {
    return realpathSync(dir)
  } catch (err) {
    return ifUnreadable(dir)(err)
  }
}

export function runningBaseline(projectDir: string): BaselineJob | null {
  return jobs.get(keyOf(projectDir)) ?? null
}

/** Resolves once no baseline runs for the folder (whatever its outcome: a cancelled one just leaves the work). */
export async function waitForBaseline(projectDir: string): Promise<void> {
  const job = jobs.get(keyOf(projectDir))
  if (job) await job.done.catch(reportedElsewhere)
}

/**
 * Starts the baseline unless one runs already (that one is returned). `done` resolves to the snapshot, or null
 * when the project had snapshots by then; it rejects with AppError('cancelled') after `cancel()`.
 */
export function startBaseline(
  engine: SnapshotEngine,
  onProgress: (progress: BaselineProgress) => void = () => {},
): BaselineJob {
  const key = keyOf(engine.paths.projectDir)
  const existing = jobs.get(key)
  if (existing) return existing
  const controller = new AbortController()
  let progress: BaselineProgress | null = null
  const done = engine.saveBaseline({
    signal: controller.signal,
    onProgress: (p) => {
      progress = p
      onProgress(p)
    },
  })
  const job: BaselineJob = {
    done,
    get progress() {
      return progress
    },
    cancel: () => controller.abort(),
  }
  jobs.set(key, job)
  const forget = () => {
    if (jobs.get(key) === job) jobs.delete(key)
  }
  done.then(forget, forget)
  return job
}
