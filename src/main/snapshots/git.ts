import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { devNull } from 'node:os'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'

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
}

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
    pending.catch(() => checkedBinaries.delete(binary))
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

function spawnGit(
  binary: string,
  args: string[],
  opts: RunOptions & { baseEnv?: NodeJS.ProcessEnv; cwd?: string },
): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const env = opts.env ? { ...(opts.baseEnv ?? shadowEnv()), ...opts.env } : (opts.baseEnv ?? shadowEnv())
    const child = spawn(binary, args, {
      env,
      cwd: opts.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (b: Buffer) => out.push(b))
    child.stderr.on('data', (b: Buffer) => err.push(b))
    child.on('error', reject)
    child.on('close', (code, signal) =>
      resolve({
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err).toString('utf8'),
        code: code ?? (signal ? 128 : 1),
      }),
    )
    // A child that dies early closes stdin; EPIPE is reported through the exit code instead.
    child.stdin.on('error', () => {})
    if (opts.input !== undefined) child.stdin.end(opts.input)
    else child.stdin.end()
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
    return spawn(this.binary, full, {
      env: this.env,
      cwd: this.workTree,
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    })
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
      result = await spawnGit(this.binary, full, { ...opts, baseEnv: this.env, cwd })
      if (trace)
        process.stderr.write(
          `[git ${(performance.now() - started).toFixed(1)} ms] ${args.slice(2).join(' ').slice(0, 80)}\n`,
        )
    } catch (err) {
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
