import { withProjectLock, readRef, storePaths } from '../snapshots'
import { appendHistory, commitMessage, QUEUE_REF, readHistoryFiles } from './history'
import { historyExists, historyGit, projectDirOf, queueLockOf, readPlanText } from './queueStore'

/**
 * Seed 001's build pre-flight: `.ralph/plan.jsonl` is "uncommitted" when it differs from the last version its
 * history ref holds — edited by hand, or brought back by a rollback (which never rewrites the ref).
 */
export async function planUncommitted(projectDirIn: string): Promise<boolean> {
  const projectDir = await projectDirOf(projectDirIn)
  const text = await readPlanText(projectDir)
  if (text === null) return false
  if (!historyExists(projectDir)) return true
  const head = await readRef(storePaths(projectDir).gitDir, QUEUE_REF)
  if (head === null) return true
  const [recorded] = await readHistoryFiles(historyGit(projectDir), [head])
  return recorded !== text
}

/** Records plan.jsonl as it is now in the history ("ralph: update plan"); null when it was recorded already. */
export async function commitPlanFile(projectDirIn: string): Promise<string | null> {
  const projectDir = await projectDirOf(projectDirIn)
  const { key, lockFile } = await queueLockOf(projectDir)
  return withProjectLock(key, lockFile, 'queue change', { timeoutMs: 30_000 }, async () => {
    if (!(await planUncommitted(projectDir))) return null
    const text = (await readPlanText(projectDir)) ?? ''
    return appendHistory(
      historyGit(projectDir),
      text,
      commitMessage('ralph: update plan', { op: 'update-plan', ids: [], spec: null }),
    )
  })
}
