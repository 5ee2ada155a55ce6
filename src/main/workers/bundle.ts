// Git bundles for workers (issue #39): the job's base going out and the task's snapshots coming back. Every git call
// runs through ShadowGit (no hooks, no transports, no user config). A scratch store borrows a snapshot store's objects
// (objects/info/alternates, as lanes do), so a bundle is made or checked without writing one ref or object into the
// project's own store.
import { open, mkdtemp, mkdir, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import { ShadowGit } from '../snapshots'
import { noteFailure, type Logger } from '../workspace'

const SHA = /^[0-9a-f]{40}$/
/** A bundle's header is a few lines per ref: anything longer than this is not a bundle Ralph wrote. */
const HEADER_MAX = 64 * 1024

export interface BundleHeader {
  /** The refs the bundle carries, by name. */
  refs: Map<string, string>
  /** The commits the receiving store must already have. */
  prerequisites: string[]
}

/**
 * Reads a bundle's header (v2 or v3: the signature, `-<sha>` prerequisites, `<sha> <ref>` refs, a blank line)
 * without git, so what a bundle claims is known before any of it is written anywhere. Throws what is wrong.
 */
export async function readBundleHeader(file: string, what: string): Promise<BundleHeader> {
  const handle = await open(file, 'r').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw new AppError('not-found', `${what} is missing (${file}).`)
    throw err
  })
  let text: string
  try {
    const buf = Buffer.alloc(HEADER_MAX)
    const { bytesRead } = await handle.read(buf, 0, HEADER_MAX, 0)
    const end = buf.subarray(0, bytesRead).indexOf('\n\n')
    if (end < 0) throw notABundle(what, 'its header does not end')
    text = buf.subarray(0, end).toString('utf8')
  } finally {
    await handle.close()
  }
  const [signature, ...lines] = text.split('\n')
  if (signature !== '# v2 git bundle' && signature !== '# v3 git bundle')
    throw notABundle(what, 'it does not start with a git bundle signature')
  const header: BundleHeader = { refs: new Map(), prerequisites: [] }
  for (const line of lines) {
    if (line.startsWith('@')) continue // v3 capabilities (object-format, filter)
    if (line.startsWith('-')) {
      const sha = line.slice(1, 41)
      if (!SHA.test(sha)) throw notABundle(what, `a prerequisite line is not a commit id: "${line}"`)
      header.prerequisites.push(sha)
      continue
    }
    const m = /^([0-9a-f]{40}) (refs\/[^\s]+)$/.exec(line)
    if (!m) throw notABundle(what, `a line of its header is not a ref: "${line.slice(0, 80)}"`)
    if (header.refs.has(m[2]!)) throw notABundle(what, `it names ${m[2]} twice`)
    header.refs.set(m[2]!, m[1]!)
  }
  return header
}

const notABundle = (what: string, why: string) =>
  new AppError('invalid-input', `${what} is not a usable git bundle: ${why}.`)

/**
 * A bare store in a temp folder, borrowing `borrow`'s objects when given, removed after `fn` (whatever it throws).
 * Nothing it does reaches the borrowed store: new objects land in the scratch store's own folder.
 */
export async function withScratchStore<T>(
  borrow: string | null,
  logger: Logger,
  fn: (git: ShadowGit, gitDir: string) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-bundle-'))
  try {
    const gitDir = join(dir, 'store.git')
    const git = new ShadowGit(gitDir, dir)
    await git.plain(['init', '--quiet', '--bare', gitDir])
    if (borrow !== null) {
      const info = join(gitDir, 'objects', 'info')
      await mkdir(info, { recursive: true })
      await writeFile(join(info, 'alternates'), `${await realpath(join(borrow, 'objects'))}\n`)
    }
    return await fn(git, gitDir)
  } finally {
    await rm(dir, { recursive: true, force: true }).catch((err: unknown) =>
      noteFailure(logger, `Could not remove the scratch store ${dir}`, err),
    )
  }
}

/** `git bundle verify` in `git`'s store: the header holds and every prerequisite is there. Throws git's reason. */
export async function verifyBundle(git: ShadowGit, file: string, what: string): Promise<void> {
  const res = await git.run(['bundle', 'verify', '--quiet', file], { okCodes: [0, 1, 128] })
  if (res.code !== 0)
    throw new AppError(
      'invalid-input',
      `${what} fails git bundle verify: ${firstLines(res.stderr) || `git exited with ${res.code}`}.`,
    )
}

/**
 * Writes the bundle's objects into `git`'s store (index-pack checks every object: a damaged pack fails here) and
 * returns its refs as git read them. No ref is written.
 */
export async function unbundle(git: ShadowGit, file: string, what: string): Promise<Map<string, string>> {
  const res = await git.run(['bundle', 'unbundle', file], { okCodes: [0, 1, 128] })
  if (res.code !== 0)
    throw new AppError(
      'invalid-input',
      `${what} could not be unpacked: ${firstLines(res.stderr) || `git exited with ${res.code}`}.`,
    )
  const refs = new Map<string, string>()
  for (const line of res.stdout.toString('utf8').split('\n')) {
    const m = /^([0-9a-f]{40}) (\S+)$/.exec(line.trim())
    if (m) refs.set(m[2]!, m[1]!)
  }
  return refs
}

/** `git bundle create FILE REFS… --not EXCLUDE…` from `git`'s store. */
export async function createBundle(
  git: ShadowGit,
  file: string,
  refs: string[],
  exclude: string[] = [],
): Promise<void> {
  const args = ['bundle', 'create', '--quiet', file, ...refs]
  if (exclude.length > 0) args.push('--not', ...exclude)
  const res = await git.run(args, { okCodes: [0, 1, 128] })
  if (res.code !== 0)
    throw new AppError('git', `git bundle create failed: ${firstLines(res.stderr) || `exit ${res.code}`}.`)
}

/** The first lines of git's complaint, on one line. */
function firstLines(stderr: string): string {
  return stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, 3)
    .join(' ')
}

export { SHA as COMMIT_ID }
