// One engine session: the user's agent CLI started in the project inside the sandbox, with its private home and
// Ralph's tools over MCP, its stdout read line by line into normalised events. What the events mean for the task
// (the tool budget, a usage limit, a failure) is the loop's decision (loop/engineIteration.ts); this only runs
// the process and stops it when asked. The user's login never enters the session: Ralph's credential proxy
// (credentialProxy.ts) holds it, and the session gets a placeholder and the proxy's URL.
import { spawn } from 'node:child_process'
import { realpath } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, sep } from 'node:path'
import { AppError } from '../../shared/errors'
import { createPidsCgroup, prepareSandbox } from '../sandbox'
import {
  commandEnv,
  groupAlive,
  killGroup,
  killSandbox,
  MODEL_WRITABLE_FILES,
  watchLimits,
  type ToolContext,
} from '../tools'
import { noteFailure, type Logger } from '../workspace'
import { ENGINE_CLIS } from './catalog'
import { engineBinary } from './detect'
import { startCredentialProxy, type CredentialProxy } from './credentialProxy'
import { sessionMeter, type CapReached, type SessionCostCap } from './proxyMeter'
import type { ModelWire } from './proxyUsage'
import { startRalphToolsServer } from './ralphTools'
import { stageRalphDir } from './ralphStage'
import { createSessionHome } from './sessionHome'
import type {
  AgentEngineId,
  EngineAdapter,
  EngineEvent,
  EngineSessionSpec,
  LoginContext,
  LoginSession,
} from './types'

const STDERR_KEEP = 8000
const DRAIN_MS = 2000
/**
 * After the proxy refused a call for the cap, the engine is given this long to end on its own: it then reports its
 * session's cost (Claude Code's `result`), which a stop would lose. Every call it makes meanwhile is refused too.
 */
const CAP_REFUSED_GRACE_MS = 10_000

/** The wire format of each engine's model calls, as its proxy reads them under a cost cap. */
const ENGINE_WIRE: Record<AgentEngineId, ModelWire> = {
  'claude-code': 'anthropic-messages',
  codex: 'openai-responses',
}

/**
 * Under a cost cap the proxy reads each model call: Codex compresses its requests with zstd (on by default in
 * codex-cli 0.169), which Node 20 cannot read, and compressing for a proxy on 127.0.0.1 gains nothing.
 */
const METERED_ARGS: Record<AgentEngineId, string[]> = {
  'claude-code': [],
  codex: ['-c', 'features.enable_request_compression=false'],
}

export interface EngineSessionInput {
  adapter: EngineAdapter
  projectDir: string
  /** Ralph's environment: the sandbox builds the session's from its allowlist plus the adapter's passEnv. */
  env: NodeJS.ProcessEnv
  /** What the session is asked (the runner adds the project, the home and Ralph's tools). */
  spec: Pick<EngineSessionSpec, 'system' | 'prompt' | 'model' | 'images'>
  /** The task's tool context: Ralph's tools (mark_complete, plan, snapshot, queue) run with it. */
  toolCtx: ToolContext
  signal: AbortSignal
  logger: Logger
  /** Each event as it comes; returning 'stop' ends the session there (the loop's tool budget). */
  onEvent(event: EngineEvent): 'stop' | void
  /** The model the launch says the session uses (before any event; the stream may name it again). */
  onModel?(model: string): void
  /** Ralph's own provider settings: the engine's login and base URL when they name its provider. */
  provider?: LoginContext['provider']
  /** Which login the session uses and where its model calls go (before any event); null: none was found. */
  onLogin?(description: string | null): void
  /** Tests only: the user's home whose login and configuration are read (default: the real one). */
  userHome?: string
  /**
   * The task's cost cap: the proxy refuses the session's model calls once it is reached (or when a prompt alone
   * would pass it), bounds each answer to what is left, and counts each call as its answer passes. The session
   * then ends with a `cost-cap` event.
   */
  costCap?: SessionCostCap
}

export interface EngineSessionResult {
  /** Why the process was stopped, when it was: the user (abort) or the caller ('stop' from onEvent). */
  stoppedBy: 'abort' | 'caller' | 'memory' | 'processes' | null
  exit: { code: number | null; signal: NodeJS.Signals | null }
  /** A call of Ralph's tools marked the task complete. */
  completed: boolean
}

/** The folder an engine's program needs to read: its npm package's node_modules (its platform binary is a sibling). */
async function installRoot(binary: string): Promise<string> {
  const real = await realpath(binary)
  const at = real.lastIndexOf(`${sep}node_modules${sep}`)
  return at === -1 ? dirname(real) : real.slice(0, at + `${sep}node_modules`.length)
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/** Variables of Ralph's environment the adapter passes (its provider settings), where they are set. */
function passed(adapter: EngineAdapter, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of adapter.passEnv) {
    const value = env[name]
    if (value !== undefined && value !== '') out[name] = value
  }
  return out
}

export async function runEngineSession(input: EngineSessionInput): Promise<EngineSessionResult> {
  const { adapter, logger } = input
  const cli = ENGINE_CLIS[adapter.id]
  const binary = await engineBinary(adapter.id, input.env)
  input.signal.throwIfAborted()

  const userHome = input.userHome ?? homedir()
  const login = await adapter.login({ env: input.env, userHome, provider: input.provider ?? null })
  input.onLogin?.(login?.description ?? null)
  const home = await createSessionHome(
    {
      dirs: adapter.homeDirs,
      files: adapter.homeFiles,
      ...(adapter.homeFilters ? { filters: adapter.homeFilters } : {}),
    },
    userHome,
    logger,
  )
  let proxy: CredentialProxy | null = null
  let loginSession: LoginSession = { env: {}, args: [], files: {} }
  let tools: Awaited<ReturnType<typeof startRalphToolsServer>>
  const cap = capWatch()
  try {
    if (login) {
      const meter = input.costCap
        ? sessionMeter({
            wire: ENGINE_WIRE[adapter.id],
            cap: input.costCap,
            engine: adapter.id,
            boundsOutput: login.boundsOutput !== false,
            logger,
            onReached: cap.reached,
          })
        : null
      proxy = await startCredentialProxy({
        upstream: login.upstream,
        authHeaders: () => login.authHeaders(),
        ...(login.extraHeaders ? { extraHeaders: login.extraHeaders } : {}),
        ...(meter ? { meter } : {}),
        ...(login.signRequest ? { signRequest: login.signRequest } : {}),
        logger,
      })
      loginSession = login.session(proxy)
      for (const [rel, content] of Object.entries(loginSession.files)) await home.write(rel, content)
    }
    tools = await startRalphToolsServer({ dir: home.path, toolCtx: input.toolCtx, logger })
  } catch (err) {
    await proxy?.close()
    await home.remove()
    throw err
  }
  try {
    const stage = await stageRalphDir(input.projectDir, home.path, logger)
    const sandbox = await prepareSandbox({
      projectDir: input.projectDir,
      env: input.env,
      writableRalphFiles: MODEL_WRITABLE_FILES,
      logger,
      home: home.path,
      readablePaths: [await installRoot(binary), dirname(process.execPath)],
      ...(stage ? { ralphStage: stage } : {}),
    })
    if (!sandbox.ok)
      throw new AppError('config', sandbox.message.replace(/^Not run: /, `${cli.label} was not started: `))
    const launch = await adapter.launch({
      ...input.spec,
      projectDir: sandbox.projectDir,
      ralphTools: tools.launch,
      sessionHome: home.path,
      providerArgs:
        input.costCap && proxy ? [...loginSession.args, ...METERED_ARGS[adapter.id]] : loginSession.args,
    })
    if (launch.model) input.onModel?.(launch.model)
    const env = {
      ...commandEnv(input.env, { home: home.path, passEnv: sandbox.passEnv }),
      ...passed(adapter, input.env),
      ...launch.env,
      ...loginSession.env,
    }
    // The engine replaces the sandbox's shell (exec), so a stop reaches it directly.
    let line = sandbox.wrap(`exec ${[binary, ...launch.args].map(shellQuote).join(' ')}`, env)
    const cgroup =
      sandbox.kind === 'bubblewrap' ? await createPidsCgroup(sandbox.limits.processes + 3, logger) : null
    if (cgroup !== null) {
      line = {
        ...line,
        file: '/bin/sh',
        args: ['-c', 'echo $$ > "$0" && exec "$@"', cgroup.procsFile, line.file, ...line.args],
      }
    }
    try {
      const parser = adapter.createParser({ projectDir: sandbox.projectDir })
      const result = await runProcess(line, sandbox.projectDir, launch.stdin, input, (l) => parser.line(l), {
        bubblewrap: sandbox.kind === 'bubblewrap',
        limits: sandbox.limits,
        cgroup,
        end: (exit, stderr) => parser.end({ code: exit.code, signal: exit.signal, stderr }),
        // A login the proxy found unusable (an expired token) is the failure, whatever the engine made of the 401.
        loginProblem: () => proxy?.loginProblem ?? null,
        cap,
      })
      // The model's files the engine wrote in its copy of .ralph/ (plan.tsx, a status.txt set to complete …).
      if (stage) await stage.syncBack()
      return { ...result, completed: tools.completed }
    } finally {
      await cgroup?.remove()
    }
  } finally {
    await tools.close()
    await proxy?.close()
    await home.remove()
  }
}

/**
 * Where the proxy's meter says the cap held, for the running process: the first time is the session's `cost-cap`
 * event; `listen` hears it once the process runs.
 */
interface CapWatch {
  reached(reached: CapReached): void
  first(): CapReached | null
  listen(deliver: (reached: CapReached) => void): void
}

function capWatch(): CapWatch {
  let first: CapReached | null = null
  let deliver: ((reached: CapReached) => void) | null = null
  return {
    reached(reached) {
      if (first) return
      first = reached
      deliver?.(reached)
    },
    first: () => first,
    listen(fn) {
      deliver = fn
      if (first) fn(first)
    },
  }
}

const capEvent = (r: CapReached): EngineEvent => ({ type: 'cost-cap', ...r })

interface ProcessOptions {
  bubblewrap: boolean
  limits: Parameters<typeof watchLimits>[2]
  cgroup: Parameters<typeof watchLimits>[3]
  end(exit: EngineSessionResult['exit'], stderr: string): EngineEvent[]
  loginProblem(): string | null
  cap: CapWatch
}

/** Runs the wrapped program, feeding stdout lines to `parse` and the events to the caller, until it exits. */
function runProcess(
  launch: { file: string; args: string[]; env: NodeJS.ProcessEnv },
  cwd: string,
  stdin: string | null,
  input: EngineSessionInput,
  parse: (line: string) => EngineEvent[],
  opts: ProcessOptions,
): Promise<Omit<EngineSessionResult, 'completed'>> {
  const { logger, signal } = input
  return new Promise((resolve, reject) => {
    // detached: the sandbox leads its own process group, so a stop kills everything the engine started.
    const child = spawn(launch.file, launch.args, { cwd, env: launch.env, detached: true, stdio: 'pipe' })
    let stoppedBy: EngineSessionResult['stoppedBy'] = null
    let stderr = ''
    let buffer = ''
    const stop = (why: NonNullable<EngineSessionResult['stoppedBy']>) => {
      if (stoppedBy || child.pid === undefined) return
      stoppedBy = why
      void (opts.bubblewrap ? killSandbox(logger, child.pid) : killGroup(logger, child.pid))
    }
    let capSaid = false
    const deliver = (events: EngineEvent[]) => {
      for (let event of events) {
        if (event.type === 'failure') {
          // The engine's failure after the proxy refused a call for the cap is that refusal: the cap's event.
          const capped = opts.cap.first()
          if (capped && capSaid) continue
          const problem = capped ? null : opts.loginProblem()
          if (capped) event = capEvent(capped)
          else if (problem) event = { type: 'failure', kind: 'not-logged-in', message: problem }
        }
        if (event.type === 'cost-cap') capSaid = true
        if (!stoppedBy && input.onEvent(event) === 'stop') stop('caller')
      }
    }
    // The cap held at the proxy. Calls reached it: the session ends there, before the engine acts on the answer
    // (its tools must not run). A call refused: the engine ends on the refusal (or is stopped after the grace).
    let grace: NodeJS.Timeout | undefined
    opts.cap.listen((reached) => {
      const now = () => {
        if (!capSaid) deliver([capEvent(reached)])
      }
      if (reached.why === null) now()
      else grace = setTimeout(now, CAP_REFUSED_GRACE_MS)
    })
    const onLine = (l: string) => {
      if (l.trim() === '' || stoppedBy) return
      try {
        deliver(parse(l))
      } catch (err) {
        // One unreadable line must not lose the session: recorded, and the stream goes on.
        noteFailure(logger, `engine: a line of ${input.adapter.id}'s output could not be read`, err)
      }
    }
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        onLine(buffer.slice(0, nl).replace(/\r$/, ''))
        buffer = buffer.slice(nl + 1)
      }
    })
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-STDERR_KEEP)))
    child.stdin.on('error', (err) => noteFailure(logger, 'engine: the session closed its input early', err))
    child.stdin.end(stdin ?? '')
    const endWatch =
      opts.bubblewrap && child.pid !== undefined
        ? watchLimits(logger, child.pid, opts.limits, opts.cgroup, (what) => stop(what))
        : () => undefined
    const onAbort = () => stop('abort')
    signal.addEventListener('abort', onAbort, { once: true })
    if (signal.aborted) onAbort()
    const closed = new Promise<void>((r) => child.stdout.once('close', () => r()))
    child.once('error', (err) => {
      endWatch()
      signal.removeEventListener('abort', onAbort)
      reject(new AppError('config', `${input.adapter.id} could not be started: ${err.message}`))
    })
    child.once('exit', (code, sig) => {
      clearTimeout(grace)
      endWatch()
      signal.removeEventListener('abort', onAbort)
      void (async () => {
        // What the engine left running inside would outlive the iteration.
        if (child.pid !== undefined && (await groupAlive(logger, child.pid)))
          await killGroup(logger, child.pid)
        // Cleared once the output has closed: a pending timer would keep the process (`ralph run`) alive after
        // the task has ended, up to DRAIN_MS past a stop.
        let drain: NodeJS.Timeout | undefined
        await Promise.race([closed, new Promise((r) => (drain = setTimeout(r, DRAIN_MS)))])
        clearTimeout(drain)
        if (buffer.trim()) onLine(buffer)
        const exit = { code, signal: sig }
        if (!stoppedBy) deliver(opts.end(exit, stderr.trim()))
        // An engine that ended quietly after a refusal still ended at the cap.
        const capped = opts.cap.first()
        if (capped && !capSaid) deliver([capEvent(capped)])
        resolve({ stoppedBy, exit })
      })().catch(reject)
    })
  })
}
