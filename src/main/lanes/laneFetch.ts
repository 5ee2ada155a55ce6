// A lane's snapshots brought into the project's store: `git fetch` from the lane's store, so only the objects the
// project's store lacks move (the lane borrows the rest from it already). They land as `refs/lanes/<task>/<name>`,
// never as tags: the project's timeline shows a task only once it is applied to the user's folder.
import { AppError } from '../../shared/errors'
import { readRef, ShadowGit, snapshotTags, storePaths, withSnapshotLock } from '../snapshots'

const SHA = /^[0-9a-f]{40}$/

export type LaneRefName = 'pre' | 'post'

/** Where lane task N's `pre` or `post` snapshot is kept in the project's store. */
export const laneRef = (task: number, name: LaneRefName): string => {
  if (!Number.isSafeInteger(task) || task < 1) throw new RangeError(`"${task}" is not a task number.`)
  return `refs/lanes/${task}/${name}`
}

/**
 * Fetches the lane store's `task-N-pre` and `task-N-post` tags (those that exist) into the project's store as
 * `refs/lanes/N/pre` and `refs/lanes/N/post` (replacing what an earlier run of task N left there). Returns the
 * commits fetched, null for a tag the lane does not have.
 */
export async function fetchLaneSnapshots(opts: {
  projectDir: string
  laneStoreDir: string
  task: number
  gitBinary?: string
}): Promise<Record<LaneRefName, string | null>> {
  const found: Record<LaneRefName, string | null> = { pre: null, post: null }
  const specs: string[] = []
  for (const name of ['pre', 'post'] as const) {
    const tag = `refs/tags/${name === 'pre' ? snapshotTags.taskPre(opts.task) : snapshotTags.taskPost(opts.task)}`
    const sha = await readRef(opts.laneStoreDir, tag)
    if (sha === null) continue
    found[name] = sha
    specs.push(`+${tag}:${laneRef(opts.task, name)}`)
  }
  if (specs.length === 0) return found
  const { gitDir } = storePaths(opts.projectDir)
  const git = new ShadowGit(gitDir, opts.projectDir, undefined, opts.gitBinary)
  // Under the project's snapshot lock: a prune or repack of the project's store never runs beside it. Shadow git
  // allows no transport; this one fetch reads a store of Ralph's own, by its path.
  const fetch = ['-c', 'protocol.file.allow=always', 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head']
  await withSnapshotLock(opts.projectDir, 'lane fetch', () =>
    git.run([...fetch, '--', opts.laneStoreDir, ...specs]),
  )
  for (const name of ['pre', 'post'] as const) {
    if (found[name] === null) continue
    const landed = await readRef(gitDir, laneRef(opts.task, name))
    if (landed !== found[name] || !SHA.test(landed))
      throw new AppError(
        'git',
        `The lane's ${name} snapshot of task ${opts.task} did not reach the project's store.`,
      )
  }
  return found
}
