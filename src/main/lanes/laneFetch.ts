// A lane's snapshots brought into the project's store: the lane borrows the project's objects already, so only the
// objects the lane wrote itself move — copied file by file (a loose object, or a pack with its index last), as git
// writes its own: to a temporary name, then renamed into place. Four lanes ending at once each did a `git fetch`
// (four processes, a pack negotiated and indexed) under the project's snapshot lock, one after another: the last
// lane's verification waited 0.3 s for the others'. They land as `refs/lanes/<task>/<name>`, never as tags: the
// project's timeline shows a task only once it is applied to the user's folder.
import { randomBytes } from 'node:crypto'
import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import { readRef, ShadowGit, snapshotTags, storePaths, withSnapshotLock } from '../snapshots'
import { ifMissing } from '../workspace'

const SHA = /^[0-9a-f]{40}$/

export type LaneRefName = 'pre' | 'post'

/** Where lane task N's `pre` or `post` snapshot is kept in the project's store. */
export const laneRef = (task: number, name: LaneRefName): string => {
  if (!Number.isSafeInteger(task) || task < 1) throw new RangeError(`"${task}" is not a task number.`)
  return `refs/lanes/${task}/${name}`
}

/**
 * Brings the lane store's `task-N-pre` and `task-N-post` tags (those that exist) into the project's store as
 * `refs/lanes/N/pre` and `refs/lanes/N/post` (replacing what an earlier run of task N left there), with the objects
 * the lane wrote (git refuses a ref to an object it cannot find). Returns the commits brought, null for a tag the
 * lane does not have.
 */
export async function fetchLaneSnapshots(opts: {
  projectDir: string
  laneStoreDir: string
  task: number
  gitBinary?: string
}): Promise<Record<LaneRefName, string | null>> {
  const found: Record<LaneRefName, string | null> = { pre: null, post: null }
  /** `update-ref --stdin` lines. */
  const specs: string[] = []
  for (const name of ['pre', 'post'] as const) {
    const tag = `refs/tags/${name === 'pre' ? snapshotTags.taskPre(opts.task) : snapshotTags.taskPost(opts.task)}`
    const sha = await readRef(opts.laneStoreDir, tag)
    if (sha === null) continue
    found[name] = sha
    specs.push(`update ${laneRef(opts.task, name)} ${sha}\n`)
  }
  if (specs.length === 0) return found
  const { gitDir } = storePaths(opts.projectDir)
  const git = new ShadowGit(gitDir, opts.projectDir, undefined, opts.gitBinary)
  // Under the project's snapshot lock: a prune of the project's store never runs between the copy and the refs
  // that make the copied objects reachable.
  await withSnapshotLock(opts.projectDir, 'lane fetch', async () => {
    await copyOwnObjects(join(opts.laneStoreDir, 'objects'), join(gitDir, 'objects'))
    await git.run(['update-ref', '--stdin'], { input: specs.join('') })
  })
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

const LOOSE_DIR = /^[0-9a-f]{2}$/
const LOOSE_FILE = /^[0-9a-f]{38}(?:[0-9a-f]{24})?$/
const PACK_FILE = /^pack-[0-9a-f]{40,64}\.(pack|rev|idx)$/

/**
 * The objects a lane's store holds itself, copied into the project's store where it lacks them. A pack's `.idx` goes
 * last: git reads a pack only through its index, so a pack copied in part is never seen.
 */
async function copyOwnObjects(from: string, to: string): Promise<void> {
  const dirs = (await readdir(from).catch(ifMissing([] as string[]))).filter((d) => LOOSE_DIR.test(d))
  await Promise.all(
    dirs.map(async (dir) => {
      const files = (await readdir(join(from, dir))).filter((f) => LOOSE_FILE.test(f))
      if (files.length === 0) return
      await mkdir(join(to, dir), { recursive: true })
      await Promise.all(files.map((f) => copyObjectFile(join(from, dir, f), join(to, dir), f)))
    }),
  )
  const packs = (await readdir(join(from, 'pack')).catch(ifMissing([] as string[]))).filter((f) =>
    PACK_FILE.test(f),
  )
  const indexLast = (f: string) => (f.endsWith('.idx') ? 1 : 0)
  for (const f of packs.sort((a, b) => indexLast(a) - indexLast(b))) {
    await mkdir(join(to, 'pack'), { recursive: true })
    await copyObjectFile(join(from, 'pack', f), join(to, 'pack'), f)
  }
}

/** `src` as `dir/name` unless that exists (objects never change: the same name is the same content). */
async function copyObjectFile(src: string, dir: string, name: string): Promise<void> {
  const dest = join(dir, name)
  if (await exists(dest)) return
  // git's own temporary name: `git prune` removes one a killed copy leaves.
  const tmp = join(dir, `tmp_obj_${randomBytes(6).toString('hex')}`)
  try {
    await copyFile(src, tmp)
    await rename(tmp, dest)
  } catch (err) {
    await rm(tmp, { force: true })
    throw err
  }
}

const exists = (path: string): Promise<boolean> => stat(path).then(() => true, ifMissing(false))
