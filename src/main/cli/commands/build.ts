import { parseEngineId, readProjectEngine, type EngineId } from '../../engines'
import { AppMcpServers } from '../../mcp'
import { FileVault } from '../../secrets/fileVault'
import { basename } from 'node:path'
import { createInterface } from 'node:readline/promises'
import { AppError } from '../../../shared/errors'
import { ANY_TASK_ID } from '../../../shared/queue'
import { formatLoopEvent } from '../../../shared/formatLoopEvent'
import { buildModes, runBuild, type BuildEvent, type BuildMode, type BuildResult } from '../../build'
import { loadContextWindowOverrides } from '../../llm/contextWindows'
import { loadPriceOverrides } from '../../llm/pricing'
import { EscalationsRepo } from '../../store/escalationsRepo'
import { RunsRepo } from '../../store/runsRepo'
import { SnapshotsRepo } from '../../store/snapshotsRepo'
import { VerdictsRepo } from '../../store/verdictsRepo'
import { checkProjectFolder } from '../../workspace/projectFolder'
import { MAX_PARALLEL, readLanesConfig } from '../../lanes'
import { laneRunnerFor, readWorkersConfig, workerBackends, type WorkersConfig } from '../../workers'
import { intFlag, numberFlag, stringFlag, usageError } from '../args'
import { askUserEditsInTerminal, onUserEditsFlag } from '../userEditsPrompt'
import { openCliServices } from '../openCore'
import { warnIfUnsandboxed } from '../sandboxWarning'
import { writeJson } from '../output'
import { ExitCode, type CliCommand, type CliContext } from '../types'
import { noteFailure } from '../../workspace/failures'
import type { Logger } from '../../workspace/logFile'

const usage = `Usage: ralph build [--mode yolo|hybrid|interactive] [--max-cost USD] [--max-minutes N]
                   [--max-iterations N] [--no-wait] [--retry ID] [--engine E] [--parallel N]
                   [--workers local|docker] [--on-user-edits keep-theirs|take-task|stop] [--project DIR] [--json]

Works the work queue (.ralph/plan.jsonl): the next pending task whose dependencies are done runs the whole task
lifecycle (pre-task snapshot, its name, notes and acceptance criteria in .ralph/task.md, iterations, gates, post
snapshot), then VERIFY: the DET: criteria and the project's checks first, then one model call per LLM: criterion.
  PASS          the task is accepted and the next one starts
  FAIL          the task is rejected (a tombstone, back to pending) and tried again with the reasons; the third
                failure rolls the project back to before the task's first attempt and stops for you
  stuck         an attempt that stalls is re-planned once from scratch; stuck again, it stops for you
An escalated task (the third failure, or stuck again) stays escalated: later builds do not start it (they stop
with status escalated, naming it) until you retry it (--retry), edit its notes or criteria in the Queue panel, or
remove it.
  NEEDS_HUMAN   the task is marked done and the build pauses: ralph task accept ID, or ralph task reject "why" --id ID
Escalations, pauses, budget warnings and the final summary are written to .ralph/notifications/<event>-<time>.md.

--mode         yolo and hybrid (default) go on after a PASS; interactive asks before accepting each task (in a
               terminal; elsewhere the build pauses for \`ralph task accept\`)
--max-cost     stop when the build's model calls have cost this many dollars (a warning at 75%)
--max-minutes  stop after this many minutes (a warning at 75%; a running task is stopped, its snapshot intact)
--retry        end the escalation of task ID (its failures so far stop counting: three fresh attempts), then build
--engine       built-in|claude-code|codex: every task's iterations run with this engine instead of the project's
               (see \`ralph run --help\`); verification stays Ralph's and its LLM: criteria use the provider
--parallel     build up to N ready tasks at once (1–8; default "lanes.parallel" in .ralph/config.json, else 1).
               Each runs in a lane: its own working copy of the project in Ralph's app data folder (never your
               folder or your .git), with its own loop and sandbox. A task starts when every task it depends on is
               merged. Finished tasks merge back one at a time, are verified again on the merged tree (new nonce)
               and are applied to your folder between their own task-N-pre and task-N-post snapshots, so the
               timeline reads as a serial build. A conflict or a FAIL after the merge reruns the task once on the
               new base; a second escalates it. Budgets and Ctrl+C cover all lanes; every lane is removed when
               the build ends, the work of a lane stopped before its task merged kept as refs/lanes/N/stopped:
               the next build (a serial one too) resumes it in a lane, or discards it when its task is gone
               (build.kept says which). Your edits during the build to files a merged task does not change stay; an edit
               to a file it changes is never overwritten silently: in a terminal the build asks, else
               --on-user-edits answers.
--workers      where each lane's task runs (default "workers.backend" in .ralph/config.json, else local):
               local (this machine) or docker (a container per task on the Docker engine DOCKER_HOST names; the
               image, network and limits from "workers" in .ralph/config.json). A docker task comes back as a
               checked git bundle and is verified and merged here, with this machine's own nonce; its model key
               reaches the container only as its environment. Any workers but local build in lanes, even one.
--on-user-edits  what a build with lanes does when you changed a file the next merged task changes:
               keep-theirs   keep your version; the task's other changes are applied (task-N-post holds yours)
               take-task     write the task's version; yours stays in task-N-pre, the snapshot taken before
               stop          pause the build, nothing written (default; exit 3): build again to run the task
                             again on top of your edits
               Given, it answers without asking, also in a terminal. With --json the question is build.user-edits
               (taskId, task, lane, paths, question) and the answer build.user-edits-answered (the same with
               answer, and snapshot: the one that holds your versions).
The model comes from \`ralph config\` (or RALPH_PROVIDER, RALPH_MODEL, RALPH_BASE_URL). Ctrl+C stops cleanly,
inside a task or between tasks.

Before it starts, a plan.jsonl its history does not hold (edited by hand, or restored by a rollback) is recorded
("ralph: update plan"); in a terminal you are asked first, and "n" aborts.

--json prints NDJSON events: build.plan-committed, build.started, build.attempt, the lifecycle's events (as ralph run --json),
verify.started, verify.criterion, verify.completed, build.accepted, build.rejected, build.retry, build.replan,
build.rollback, build.notification, build.budget, build.finished; with --parallel > 1 also build.lane,
build.merging, build.applying, build.merged, build.rerun and build.kept (a stopped lane's work kept as
refs/lanes/N/stopped, or resumed or discarded by the next build), and every event carries "lane" (its lane's number,
or null outside lanes).
Exit codes: 0 the queue is built, 2 usage, 3 paused for a person, 4 escalated, failed or over budget,
5 provider/configuration error, 130 stopped.`

// Streaming text and retries are for people; everything else is the NDJSON contract.
const QUIET = new Set<BuildEvent['type']>(['llm.delta', 'llm.retry'])

function exitFor(result: BuildResult): number {
  switch (result.status) {
    case 'complete':
      return ExitCode.ok
    case 'paused':
      return ExitCode.needsClarification
    case 'stopped':
      return ExitCode.interrupted
    default:
      return result.reason === 'provider' ? ExitCode.config : ExitCode.taskFailed
  }
}

function modeFlag(ctx: CliContext): BuildMode {
  const raw = stringFlag(ctx.values, 'mode')
  if (raw === undefined) return 'hybrid'
  if ((buildModes as readonly string[]).includes(raw)) return raw as BuildMode
  throw new AppError('invalid-input', `--mode is one of ${buildModes.join(', ')}; got "${raw}".`)
}

/** `--retry ID`: a queue task id (t-…), checked before anything starts. */
function retryFlag(ctx: CliContext): string | undefined {
  const raw = stringFlag(ctx.values, 'retry')
  if (raw === undefined) return undefined
  const id = raw.trim()
  if (!ANY_TASK_ID.test(id))
    throw new AppError(
      'invalid-input',
      `--retry needs the id of an escalated task (t-…); got "${raw}". See "ralph build --help".`,
    )
  return id
}

/** A person's line for the build's and verification's events; the lifecycle's use formatLoopEvent. */
export function formatBuildEvent(e: BuildEvent): string | null {
  switch (e.type) {
    case 'build.started':
      return `▶ Build (${e.mode}): ${e.order.length} pending task${e.order.length === 1 ? '' : 's'}${e.order.length ? ` — ${e.order.join(', ')}` : ''}`
    case 'build.plan-committed':
      return '  ✓ .ralph/plan.jsonl had changes its history did not hold: recorded them ("ralph: update plan")'
    case 'build.attempt':
      return `\n▶ ${e.taskId} "${e.name}" — attempt ${e.attempt} (task ${e.task})`
    case 'verify.started':
      return `  ⧗ Verifying ${e.taskId}: ${e.criteria.length} criteri${e.criteria.length === 1 ? 'on' : 'a'}${e.warnings.map((w) => `\n  ! ${w}`).join('')}`
    case 'verify.criterion': {
      const mark = e.verdict.answer === 'YES' ? '✓' : e.verdict.answer === 'NO' ? '✗' : '?'
      return `    ${mark} ${e.verdict.ref} ${e.verdict.kind}: ${e.verdict.reason}`
    }
    case 'verify.completed':
      return `  ${e.outcome === 'PASS' ? '✓' : e.outcome === 'FAIL' ? '✗' : '?'} VERIFY ${e.outcome} (nonce ${e.nonce}, $${e.costUsd.toFixed(4)})`
    case 'build.accepted':
      return `  ✓ ${e.taskId} accepted`
    case 'build.rejected':
      return `  ✗ ${e.taskId} rejected (failure ${e.failures}): ${e.reason}`
    case 'build.retry':
      return `  ↻ ${e.taskId}: trying again with the reasons (${e.failures} of ${e.maxFailures} failures)`
    case 'build.replan':
      return `  ↻ ${e.taskId} got stuck: re-planning it from scratch`
    case 'build.user-edits':
      return `  ? ${e.taskId} (task ${e.task}) would overwrite your edits to ${e.paths.join(', ')}`
    case 'build.user-edits-answered':
      return `  ${e.answer === 'stop' ? '■' : '✓'} ${e.message}`
    case 'build.lane':
      return `  ⇉ ${e.taskId} in lane ${e.lane} (task ${e.task}, attempt ${e.attempt}, from ${e.base.slice(0, 12)})`
    case 'build.merged':
      return `  ⤵ ${e.taskId} merged and applied as task ${e.task}${e.verifiedAgain ? ' (verified again on the merged tree)' : ''}`
    case 'build.rerun':
      return `  ↻ ${e.taskId} runs again on the new base: ${e.reason}`
    case 'build.worker':
      return e.retryOf
        ? `  ↻ ${e.taskId} runs again on ${e.where}: ${e.retryOf.where} failed (${e.retryOf.fault})`
        : e.where === 'local'
          ? null
          : `  ⇢ ${e.taskId} runs on ${e.where}`
    case 'build.merging':
    case 'build.applying':
      return null
    case 'build.kept':
      return `  ${e.action === 'discarded' ? '✗' : '⧉'} ${e.message}`
    case 'build.skipped':
      return `  ⤼ ${e.taskId} "${e.name}" ${e.reason}`
    case 'build.rollback':
      return `  ⟲ Rolled back to ${e.to}${e.safetyTag ? ` (undo: ralph snapshot undo; safety snapshot ${e.safetyTag})` : ''}`
    case 'build.notification':
      return `  🔔 ${e.event}: ${e.path}`
    case 'build.budget':
      return `  ${e.level === 'warn' ? '!' : '■'} ${e.message}`
    case 'build.finished':
      return `\n${e.status === 'complete' ? '✓' : e.status === 'stopped' ? '■' : '!'} Build ${e.status}: ${e.message}`
    default:
      return formatLoopEvent(e)
  }
}

/**
 * A yes/no question in the terminal (Enter is yes). Null when there is no answer: the terminal closed, or the build
 * was stopped (Ctrl+C at the question stops the build, as everywhere else).
 */
async function askApproval(question: string, signal: AbortSignal, logger: Logger): Promise<boolean | null> {
  if (signal.aborted) return null
  const rl = createInterface({ input: process.stdin, output: process.stdout })
  // A terminal's readline takes Ctrl+C for itself (it would only pause, and the question would wait for ever).
  rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'))
  // Node 20's question never settles when its input ends: the end answers instead.
  const ended = new Promise<null>((resolve) => rl.once('close', () => resolve(null)))
  try {
    const said = await Promise.race([rl.question(`${question} [Y/n] `, { signal }), ended])
    if (said === null) return null
    const answer = said.trim().toLowerCase()
    return answer === '' || answer === 'y' || answer === 'yes'
  } catch (err) {
    // Stopped at the question (its abort rejects it): no answer, and the build ends stopped.
    if (signal.aborted) return null
    // The terminal went away mid-question: no answer, which the build treats as a no.
    noteFailure(logger, `the terminal question "${question}" got no answer`, err)
    return null
  } finally {
    rl.close()
  }
}

/** `--parallel N`: lanes at once, 1–8. */
function parallelFlag(ctx: CliContext): number | undefined {
  const raw = stringFlag(ctx.values, 'parallel')
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isInteger(n) || n < 1 || n > MAX_PARALLEL)
    throw usageError('build', `--parallel takes a number of lanes from 1 to ${MAX_PARALLEL}, got "${raw}".`)
  return n
}

/** The project's "lanes.parallel" (.ralph/config.json, default 1). */
async function projectParallel(projectDir: string): Promise<number> {
  return (await readLanesConfig(projectDir)).parallel
}

/**
 * The project's "workers" with `--workers` over its backend (null: this machine, the plain lanes build). A backend
 * this build cannot run is refused here, before anything starts.
 */
async function workersChoice(ctx: CliContext, projectDir: string): Promise<WorkersConfig | null> {
  const flag = stringFlag(ctx.values, 'workers')
  if (flag !== undefined && !(workerBackends as readonly string[]).includes(flag))
    throw usageError('build', `--workers takes ${workerBackends.join(', ')}; got "${flag}".`)
  const config = await readWorkersConfig(projectDir)
  const chosen = { ...config, backend: (flag as WorkersConfig['backend'] | undefined) ?? config.backend }
  if (chosen.backend === 'local') return null
  laneRunnerFor(chosen)
  return chosen
}

function engineFlagValue(value: string): EngineId {
  try {
    return parseEngineId(value)
  } catch (err) {
    throw usageError('build', (err as Error).message)
  }
}

export const buildCommand: CliCommand = {
  name: 'build',
  usage,
  options: {
    mode: { type: 'string' },
    'max-cost': { type: 'string' },
    'max-minutes': { type: 'string' },
    'max-iterations': { type: 'string' },
    'no-wait': { type: 'boolean' },
    retry: { type: 'string' },
    engine: { type: 'string' },
    parallel: { type: 'string' },
    workers: { type: 'string' },
    'on-user-edits': { type: 'string' },
  },
  async run(ctx) {
    if (ctx.positionals.length > 0) {
      throw new AppError(
        'invalid-input',
        `ralph build takes no arguments (got "${ctx.positionals.join(' ')}"); it works the queue. See "ralph build --help".`,
      )
    }
    const mode = modeFlag(ctx)
    const maxIterations = intFlag(ctx.values, 'max-iterations', 'build', 1)
    const maxCostUsd = numberFlag(ctx.values, 'max-cost', 'build')
    const maxMinutes = numberFlag(ctx.values, 'max-minutes', 'build')
    const retry = retryFlag(ctx)
    const parallelFlagged = parallelFlag(ctx)
    const onUserEdits = onUserEditsFlag(ctx.values)
    const projectDir = checkProjectFolder(ctx.projectDir)
    const engineFlag = stringFlag(ctx.values, 'engine')
    const engine = engineFlag === undefined ? undefined : engineFlagValue(engineFlag)
    const engineId = engine ?? (await readProjectEngine(projectDir)).engine
    const parallel = parallelFlagged ?? (await projectParallel(projectDir))
    const workers = await workersChoice(ctx, projectDir)
    await warnIfUnsandboxed(ctx.stderr)
    const services = openCliServices(ctx.env, 'build')
    try {
      const { providerSettings, projects, db, settings } = services
      // An agent engine works without a provider; its LLM: criteria then wait for the user (no judge).
      const model =
        engineId !== 'built-in' && !providerSettings.effective().value ? null : providerSettings.modelConfig()
      const fastModel = model && providerSettings.fastModelConfig(model)
      const project = projects.upsert(projectDir, basename(projectDir) || projectDir, Date.now())
      const interactiveTerminal = !ctx.json && process.stdin.isTTY === true
      let streamingText = false
      const result = await runBuild({
        projectDir,
        model,
        fastModel,
        mode,
        parallel,
        ...(workers ? { workers } : {}),
        appDataDir: services.appDataDir,
        ...(engine ? { engine } : {}),
        budget: { maxCostUsd: maxCostUsd ?? null, maxMinutes: maxMinutes ?? null },
        maxIterations,
        signal: ctx.signal,
        runs: new RunsRepo(db),
        verdicts: new VerdictsRepo(db),
        escalations: new EscalationsRepo(db),
        mcpServers: new AppMcpServers(db, services.host.vault ?? new FileVault(services.appDataDir)),
        logger: services.logger,
        ...(retry ? { retry } : {}),
        projectId: project.id,
        snapshotIndex: new SnapshotsRepo(db).indexFor(project.id),
        prices: loadPriceOverrides(settings),
        contextWindows: loadContextWindowOverrides(settings),
        waitForLimits: ctx.values['no-wait'] !== true,
        env: ctx.env,
        // A user's edit in a merged task's way: the flag answers, else a terminal asks, else the build stops.
        answerUserEdits: async (question, signal) =>
          onUserEdits ??
          (interactiveTerminal ? askUserEditsInTerminal(question, signal, services.logger) : 'stop'),
        ...(interactiveTerminal
          ? {
              approve: async (q: string) => (await askApproval(q, ctx.signal, services.logger)) === true,
              confirmPlanCommit: async () =>
                (await askApproval(
                  '.ralph/plan.jsonl has uncommitted changes. Commit now?',
                  ctx.signal,
                  services.logger,
                )) === true,
            }
          : {}),
        emit: (event) => {
          if (ctx.json) {
            if (!QUIET.has(event.type)) writeJson(ctx.stdout, event)
            return
          }
          if (streamingText) {
            ctx.stdout.write('\n')
            streamingText = false
          }
          const line = formatBuildEvent(event)
          const lane = (event as { lane?: unknown }).lane
          if (line)
            ctx.stdout.write(typeof lane === 'number' ? `[lane ${lane}] ${line.trimStart()}\n` : `${line}\n`)
          if (event.type === 'build.started' && retry)
            ctx.stdout.write(`  ↻ ${retry}: its escalation ended; it gets fresh attempts\n`)
        },
        onTextDelta: (_task, _iteration, text) => {
          if (ctx.json) return
          if (!streamingText) ctx.stdout.write('    … ')
          streamingText = true
          ctx.stdout.write(text.replace(/\n/g, ' '))
        },
      })
      return exitFor(result)
    } finally {
      services.close()
    }
  },
}
