import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { devNull } from 'node:os'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import { blockingFilesMessage, findBlockingFiles } from './blockingFiles'
import { spawnGitGroup, startGit, stopGroup } from './gitProcess'
import { reportedElsewhere } from '../workspace'

export const MIN_GIT_VERSION = '2.32.0'

export interface GitIdentity {
  name: string
  email: string
}

export interface RunOptions {
  input?: string | Buffer
  /** Exit codes that are not errors (default [0]). */
  okCodes?: number[]
  /** Extra env for this call only (e.g. GIT_OPTIONAL_LOCKS for a status that may save its caches). */
  env?: Record<string, string>
  /** Overrides the time limit gitTimeoutMs picks for this call. */
  timeoutMs?: number
  /** Stops the call (its whole process group): it then fails with AppError('cancelled'). */
  signal?: AbortSignal
}

/**
 * Time limits of shadow-git calls. Generous on purpose: they exist so that nothing waits forever, not to police
 * slow disks. A call gets the base limit plus a little per path it is handed on stdin; the commands that write or
 * read a whole store (packing, pruning, a first import, a rollback's blob stream) get the long one.
 */
export const GIT_TIMEOUT_BASE_MS = 2 * 60_000
export const GIT_TIMEOUT_PER_INPUT_ITEM_MS = 20
export const GIT_TIMEOUT_STORE_WIDE_MS = 30 * 60_000
const STORE_WIDE = new Set([
  'fast-import',
  'repack',
  'prune',
  'gc',
  'pack-objects',
  'index-pack',
  'fsck',
  'cat-file',
])

/** The time limit of one call: by its command (the first argument that is not an option) and its input size. */
export function gitTimeoutMs(args: readonly string[], input?: string | Buffer): number {
  if (STORE_WIDE.has(commandName(args))) return GIT_TIMEOUT_STORE_WIDE_MS
  let items = 0
  if (input !== undefined) {
    const buf = typeof input === 'string' ? Buffer.from(input) : input
    for (let i = buf.indexOf(0); i !== -1; i = buf.indexOf(0, i + 1)) items++
    if (items === 0) for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) items++
  }
  return GIT_TIMEOUT_BASE_MS + items * GIT_TIMEOUT_PER_INPUT_ITEM_MS
}

/** `status` in `--git-dir=… -c k=v status -z`: the first argument that is neither an option nor its value. */
function commandName(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    if (a === '-c' || a === '-C') i++
    else if (!a.startsWith('-')) return a
  }
  return 'git'
}

/**
 * A call still running after this long has the work tree scanned for named pipes and devices that git would open
 * by name (blockingFiles.ts), then again at every further interval. Status of 50,000 files runs under a second;
 * the scan costs about as much as that status and happens only on calls this slow.
 */
export const GIT_STALL_CHECK_MS = 1500
export const GIT_STALL_RECHECK_MS = 15_000

/**
 * Settings every shadow-git call runs with, whatever a config file says: nothing configured in the project (a
 * nested repository the model made, with its own fsmonitor, hooks or filters) or in the store can make git run a
 * program on the host. They travel as GIT_CONFIG_COUNT/KEY/VALUE, so they reach every git process the call starts
 * (a submodule's status included) and cost no extra process. Command-line config outranks every config file.
 * Filters are off through the store's info/attributes (`-filter`, which outranks every .gitattributes); external
 * diffs and textconv belong to porcelain `git diff`/`log` with --ext-diff/--textconv, which the store never runs
 * (its diffs are diff-index/diff-tree and cat-file). Nested repositories never enter the shadow index as gitlinks
 * (stage.ts skips them), so no command descends into one; the submodule settings are the second line of defence.
 */
export const NEUTRAL_CONFIG: readonly (readonly [string, string])[] = [
  ['core.fsmonitor', 'false'],
  // No hook can be found under /dev/null (git looks for /dev/null/<hook>).
  ['core.hooksPath', devNull],
  ['core.pager', 'cat'],
  ['core.sshCommand', 'false'],
  ['core.askPass', ''],
  ['credential.helper', ''],
  ['submodule.recurse', 'false'],
  ['diff.ignoreSubmodules', 'all'],
  ['status.submoduleSummary', 'false'],
  ['protocol.allow', 'never'],
  ['protocol.file.allow', 'never'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
]

export interface GitResult {
  stdout: Buffer
  stderr: string
  code: number
}

/**
 * The environment every shadow-git call runs in. Inherited GIT_* variables are dropped: a GIT_DIR or
 * GIT_INDEX_FILE left by a hook or an IDE would otherwise point our calls at the user's repository.
 * The user's global and system config are shut out too (hooks paths, excludes files, filters, signing).
 */
export function shadowEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(base)) {
    if (!key.startsWith('GIT_') && value !== undefined) env[key] = value
  }
  env.GIT_CONFIG_NOSYSTEM = '1'
  env.GIT_CONFIG_GLOBAL = devNull
  env.GIT_TERMINAL_PROMPT = '0'
  env.GIT_PAGER = 'cat'
  env.GIT_CONFIG_COUNT = String(NEUTRAL_CONFIG.length)
  NEUTRAL_CONFIG.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key
    env[`GIT_CONFIG_VALUE_${i}`] = value
  })
  // Read-only commands must not take index.lock to refresh stat info behind our back.
  env.GIT_OPTIONAL_LOCKS = '0'
  env.LC_ALL = 'C'
  // glibc grows and trims the heap with one brk() per zlib stream by default; on virtual machines each of those
  // costs a page-table round trip, which made bulk writes 2-6x slower (fast-import of 50k blobs: 3.9 s -> 0.6 s).
  // Other C libraries ignore the variable.
  env.MALLOC_TOP_PAD_ = String(64 * 1024 * 1024)
  return env
}

export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((n) => parseInt(n, 10) || 0)
  const pb = b.split('.').map((n) => parseInt(n, 10) || 0)
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0)
    if (d !== 0) return d
  }
  return 0
}

const checkedBinaries = new Map<string, Promise<string>>()

/** Resolves to git's version, or throws one clear AppError('git') naming the minimum version. */
export function checkGitVersion(binary = 'git'): Promise<string> {
  let pending = checkedBinaries.get(binary)
  if (!pending) {
    pending = probeVersion(binary)
    checkedBinaries.set(binary, pending)
    pending.catch((err: unknown) => {
      checkedBinaries.delete(binary) // a failed probe is asked again next time
      reportedElsewhere(err)
    })
  }
  return pending
}

async function probeVersion(binary: string): Promise<string> {
  let out: GitResult
  try {
    out = await spawnGit(binary, ['--version'], {})
  } catch (err) {
    throw new AppError(
      'git',
      `Snapshots need git ${MIN_GIT_VERSION} or newer, and git was not found (${(err as Error).message}). ` +
        'Install git and make sure it is on PATH.',
    )
  }
  const match = /git version (\d+\.\d+(?:\.\d+)?)/.exec(out.stdout.toString())
  const version = match?.[1]
  if (!version || compareVersions(version, MIN_GIT_VERSION) < 0) {
    throw new AppError(
      'git',
      `Snapshots need git ${MIN_GIT_VERSION} or newer; found ${version ?? out.stdout.toString().trim()}. ` +
        'Please update git.',
    )
  }
  return version
}

interface SpawnOptions extends RunOptions {
  baseEnv?: NodeJS.ProcessEnv
  cwd?: string
  /** Asked while a slow call runs: a message to stop it with (a named pipe git waits on), or null to go on. */
  stallCheck?: () => Promise<string | null>
}

function spawnGit(binary: string, args: string[], opts: SpawnOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const env = opts.env ? { ...(opts.baseEnv ?? shadowEnv()), ...opts.env } : (opts.baseEnv ?? shadowEnv())
    if (opts.signal?.aborted) {
      reject(cancelled(args))
      return
    }
    const call = startGit({
      binary,
      args,
      env,
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      ...(opts.input !== undefined ? { input: opts.input } : {}),
    })
    let stoppedWith: AppError | null = null
    const timers: NodeJS.Timeout[] = []
    const stop = (why: AppError): void => {
      if (stoppedWith !== null) return
      stoppedWith = why
      call.stop()
    }
    const limit = opts.timeoutMs ?? gitTimeoutMs(args, opts.input)
    timers.push(setTimeout(() => stop(timedOut(args, limit)), limit))
    const onAbort = (): void => stop(cancelled(args))
    opts.signal?.addEventListener('abort', onAbort, { once: true })
    const stall = opts.stallCheck
      ? watchStall(opts.stallCheck, (message) => stop(new AppError('git', message, { args })))
      : null
    const done = (): void => {
      for (const t of timers) clearTimeout(t)
      stall?.end()
      opts.signal?.removeEventListener('abort', onAbort)
    }
    call.end.then(
      ({ code, signal, stdout, stderr }) => {
        done()
        if (stoppedWith !== null) {
          reject(stoppedWith)
          return
        }
        resolve({ stdout, stderr: stderr.toString('utf8'), code: code ?? (signal ? 128 : 1) })
      },
      (e: unknown) => {
        done()
        reject(e)
      },
    )
  })
}

/**
 * Runs `check` once a call has taken GIT_STALL_CHECK_MS, then every GIT_STALL_RECHECK_MS, until `end()`; a message
 * from it is handed to `stop`. A check still running when the call ends schedules nothing more: a timer left behind
 * kept a finished `ralph` alive for up to GIT_STALL_RECHECK_MS.
 */
export function watchStall(
  check: () => Promise<string | null>,
  stop: (message: string) => void,
): { end(): void } {
  let ended = false
  let timer: NodeJS.Timeout | null = null
  const schedule = (ms: number): void => {
    if (ended) return
    timer = setTimeout(() => {
      timer = null
      check().then(
        (message) => {
          if (ended) return
          if (message !== null) stop(message)
          else schedule(GIT_STALL_RECHECK_MS)
        },
        () => schedule(GIT_STALL_RECHECK_MS),
      )
    }, ms)
  }
  schedule(GIT_STALL_CHECK_MS)
  return {
    end() {
      ended = true
      if (timer !== null) clearTimeout(timer)
    },
  }
}

function shownCommand(args: readonly string[]): string {
  // From the command on: `git status --porcelain`, not the -c settings and paths every call carries.
  let at = 0
  while (at < args.length && args[at]!.startsWith('-')) at += args[at] === '-c' || args[at] === '-C' ? 2 : 1
  return `git ${args.slice(at).join(' ')}`.slice(0, 120)
}

function timedOut(args: readonly string[], limit: number): AppError {
  return new AppError(
    'git',
    `"${shownCommand(args)}" did not finish within ${Math.round(limit / 1000)} s and was stopped. ` +
      'The project may be very large or the disk very slow; if this repeats, check for files git cannot read ' +
      '(named pipes, devices, network mounts) in the project, then try again.',
    { args, timeoutMs: limit },
  )
}

function cancelled(args: readonly string[]): AppError {
  return new AppError('cancelled', `Stopped: "${shownCommand(args)}" was cancelled; nothing was saved.`, {
    args,
  })
}

// RALPH_TRACE_GIT=1 prints every shadow-git call with its duration (diagnosing slow snapshots).
const trace = process.env.RALPH_TRACE_GIT === '1'

/** Runs git against one shadow store: every call carries --git-dir and --work-tree. */
export class ShadowGit {
  private readonly env: NodeJS.ProcessEnv

  /** Where the index lives: the store, or an overlay's scratch folder. */
  readonly indexDir: string

  /**
   * `overlay`: a scratch folder that takes the index and every new object, the store's objects read through
   * alternates. A read-only project is staged and diffed this way without writing to its store.
   */
  constructor(
    readonly gitDir: string,
    readonly workTree: string,
    readonly identity: GitIdentity = { name: 'Ralph Studio', email: 'snapshots@ralph.local' },
    readonly binary = 'git',
    readonly overlay: string | null = null,
  ) {
    this.env = shadowEnv()
    this.indexDir = overlay ?? gitDir
    if (overlay !== null) {
      this.env.GIT_INDEX_FILE = join(overlay, 'index')
      this.env.GIT_OBJECT_DIRECTORY = join(overlay, 'objects')
      this.env.GIT_ALTERNATE_OBJECT_DIRECTORIES = join(gitDir, 'objects')
    }
  }

  async run(args: string[], opts: RunOptions = {}): Promise<GitResult> {
    return this.exec(
      [`--git-dir=${this.gitDir}`, `--work-tree=${this.workTree}`, ...args],
      opts,
      this.workTree,
    )
  }

  /**
   * Starts git with piped streams for output too large to buffer (blob contents during a rollback). The caller
   * owns the child: it must end stdin and consume stdout; a spawn failure arrives as the child's 'error' event.
   */
  spawn(args: string[]): ChildProcessWithoutNullStreams {
    const full = [
      '-c',
      `user.name=${this.identity.name}`,
      '-c',
      `user.email=${this.identity.email}`,
      `--git-dir=${this.gitDir}`,
      `--work-tree=${this.workTree}`,
      ...args,
    ]
    const child = spawnGitGroup(this.binary, full, { env: this.env, cwd: this.workTree })
    // The caller reads its output as it comes; a call still running at the long limit is stopped (the caller
    // then sees its output end early and reports it).
    const timer = setTimeout(() => stopGroup(child), GIT_TIMEOUT_STORE_WIDE_MS)
    child.once('exit', () => clearTimeout(timer))
    child.once('error', () => clearTimeout(timer))
    return child
  }

  /** Without --git-dir/--work-tree: only for `init`, which takes the store path as its argument. */
  async plain(args: string[], opts: RunOptions = {}): Promise<GitResult> {
    return this.exec(args, opts, undefined)
  }

  // Git runs from the work tree's root: started from a subfolder of the project (a CLI call from `src/`), it
  // would scope ls-files/status to that folder and print paths relative to it.
  private async exec(args: string[], opts: RunOptions, cwd: string | undefined): Promise<GitResult> {
    const full = ['-c', `user.name=${this.identity.name}`, '-c', `user.email=${this.identity.email}`, ...args]
    const name = args.find((a) => !a.startsWith('-') && !a.includes('=')) ?? 'git'
    let result: GitResult
    const started = trace ? performance.now() : 0
    try {
      result = await spawnGit(this.binary, full, {
        ...opts,
        baseEnv: this.env,
        cwd,
        stallCheck: cwd === undefined ? undefined : () => this.blockingFiles(name),
      })
      if (trace)
        process.stderr.write(
          `[git ${(performance.now() - started).toFixed(1)} ms] ${args.slice(2).join(' ').slice(0, 80)}\n`,
        )
    } catch (err) {
      if (err instanceof AppError) throw err
      throw new AppError('git', `Could not run git: ${(err as Error).message}`)
    }
    const ok = opts.okCodes ?? [0]
    if (!ok.includes(result.code)) {
      throw new AppError('git', `git ${name} failed: ${result.stderr.trim() || `exit code ${result.code}`}`, {
        args,
        code: result.code,
      })
    }
    return result
  }

  /** A message naming the files git may be waiting on, or null (see blockingFiles.ts). */
  private async blockingFiles(command: string): Promise<string | null> {
    const found = await findBlockingFiles(this.workTree, this.gitDir)
    return found.length === 0 ? null : blockingFilesMessage(command, found)
  }

  async text(args: string[], opts: RunOptions = {}): Promise<string> {
    return (await this.run(args, opts)).stdout.toString('utf8')
  }

  /** NUL-separated output split into fields (empty trailing field dropped). */
  async fields(args: string[], opts: RunOptions = {}): Promise<string[]> {
    const out = await this.text(args, opts)
    const parts = out.split('\0')
    if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop()
    return parts
  }
}
