import { parseEngineId, readProjectEngine, type EngineId } from '../../engines'
import { AppMcpServers } from '../../mcp'
import { FileVault } from '../../secrets/fileVault'
import { basename, resolve } from 'node:path'
import { loadImageFile, resolveSeesImages } from '../../attachments'
import { AppError } from '../../../shared/errors'
import { MAX_TASK_IMAGES, MESSAGE_MAX_CHARS, messageTooLong } from '../../../shared/api/tasks'
import type { LoopEvent } from '../../../shared/loopEvents'
import { providerSettingsSchema } from '../../../shared/settings'
import { describeIssues } from '../../../shared/describeIssues'
import type { ModelConfig } from '../../llm/createModel'
import { loadContextWindowOverrides } from '../../llm/contextWindows'
import { loadPriceOverrides } from '../../llm/pricing'
import { pendingQuestion } from '../../loop'
import { runTask, type RunTaskResult } from '../../loop/runTask'
import { RunsRepo } from '../../store/runsRepo'
import { SnapshotsRepo } from '../../store/snapshotsRepo'
import { checkProjectFolder } from '../../workspace/projectFolder'
import { intFlag, numberFlag, stringFlag, usageError, type FlagValues } from '../args'
import { openCliServices } from '../openCore'
import { warnIfUnsandboxed } from '../sandboxWarning'
import { writeJson } from '../output'
import { ExitCode, type CliCommand } from '../types'
import { formatLimitCountdown, formatLoopEvent } from '../../../shared/formatLoopEvent'
import { MAX_TOKEN_CAP } from '../../../shared/budget'

const usage = `Usage: ralph run "<message>" [--provider P] [--base-url URL] [--model M] [--max-iterations N]
                 [--max-cost USD] [--max-tokens N] [--no-wait] [--image FILE]... [--engine E] [--project DIR] [--json]
       ralph run --answer "<answer>" [options as above]
       ralph run --new "<message>" [options as above]
       ralph run --resume [--max-iterations N] [options as above]

Runs one whole task headless: pre-task snapshot, task parsing, phase-gated iterations with tools, quality gates,
and the post-task snapshot when every gate passes. If the task waits for a clarification (exit 3), answer with
\`ralph run --answer "<answer>"\`: it continues the same task. While a task waits, a plain \`ralph run\` is refused
(exit 2) rather than taken as the answer; \`ralph run --new "<message>"\` starts a new task instead.

--resume continues the project's last task when it was interrupted (Ralph or the machine was killed mid-task):
the same task number, pre-task snapshot and request, from the iteration after the one that was cut short, with
.ralph/progress.md and task.md as its context. --max-iterations counts the task's earlier iterations too. It is
refused (exit 2) when the last task was not interrupted.

An iteration that fills 80% of the model's context window ends with a checkpoint in .ralph/progress.md, which the
next iteration reads (set a model's window with \`ralph config set context MODEL TOKENS\`). When the provider's
usage limit is reached (a 429 with a long reset) the task waits for the reset, showing a countdown, then resumes
the same iteration; Ctrl+C stops it (exit 130) with its work kept. --no-wait fails the task instead (exit 5).

--max-cost USD caps what the task's model calls may cost (e.g. --max-cost 0.50): a warning at 75%, and at 100%
the task stops as soon as the model call that reached the cap returns (its tools do not run). It ends failed with
reason cost-cap (exit 4), without a post-task snapshot; task-N-pre stays as it was. --max-tokens N caps the tokens
instead (prompts and answers of the task's model calls, e.g. --max-tokens 200000): for a model with no price, whose
calls a cost cap cannot count; it warns and stops the same way ("Stopped: token cap of … reached").

--image FILE attaches an image to the task (repeat it for several): PNG, JPEG, WebP or GIF, at most 5 MB each. It
is kept in .ralph/attachments/task-N/ (so the task's snapshots hold it) and sent with every iteration; a model
that cannot see images gets a note instead, and you are told before the task starts.

--engine built-in|claude-code|codex runs the iterations with that engine instead of the project's ("engine" in
.ralph/config.json, set with \`ralph engines use E\`): built-in is Ralph's own loop with the provider above;
claude-code and codex run your own installed Claude Code or Codex, logged in as you are, for each iteration,
inside the sandbox, with Ralph's tools offered to it over MCP. Snapshots, the plan gates, the quality gates, stall
recovery and the receipt stay Ralph's. An engine needs no provider (the task's parse then uses its template).

--json prints NDJSON events: task.started, snapshot.created, task.parsed, clarification.needed, iteration.started,
tool.called, phase.changed, gate.result, stall.detected, checkpoint.written, limit.waiting, limit.resumed,
budget.warning, task.completed, task.failed (these two carry the task's receipt: tokens, cost, calls, iterations, checkpoints,
limit waits).
Exit codes: 0 complete, 2 usage, 3 needs clarification, 4 task failed, 5 provider/configuration error (a usage
limit with --no-wait included), 130 stopped.`

// The NDJSON contract (DESIGN.md §10); streaming text and retries are for people, not for scripts.
const NDJSON_TYPES = new Set<LoopEvent['type']>([
  'task.started',
  'snapshot.created',
  'task.parsed',
  'clarification.needed',
  'iteration.started',
  'tool.called',
  'mcp.servers',
  'phase.changed',
  'gate.result',
  'stall.detected',
  'checkpoint.written',
  'limit.waiting',
  'limit.resumed',
  'budget.warning',
  'task.completed',
  'task.failed',
])

function exitFor(result: RunTaskResult): number {
  if (result.status === 'complete') return ExitCode.ok
  if (result.status === 'needs-clarification') return ExitCode.needsClarification
  if (result.status === 'stopped' || result.status === 'interrupted') return ExitCode.interrupted
  return result.reason === 'provider' || result.reason === 'usage-limit'
    ? ExitCode.config
    : ExitCode.taskFailed
}

/** --max-cost: a positive number of dollars (0 would stop the task before its first call). */
function costFlag(values: FlagValues): number | undefined {
  const usd = numberFlag(values, 'max-cost', 'run')
  if (usd !== undefined && !(usd > 0)) {
    throw usageError(
      'run',
      `--max-cost needs a positive number of dollars, such as --max-cost 0.50; got "${String(values['max-cost'])}".`,
    )
  }
  return usd
}

/** --max-tokens: a whole number of tokens above 0. */
function tokensFlag(values: FlagValues): number | undefined {
  const tokens = numberFlag(values, 'max-tokens', 'run')
  if (tokens !== undefined && !(Number.isInteger(tokens) && tokens > 0 && tokens <= MAX_TOKEN_CAP)) {
    throw usageError(
      'run',
      `--max-tokens needs a whole number of tokens above 0, such as --max-tokens 200000; got "${String(values['max-tokens'])}".`,
    )
  }
  return tokens
}

function modelFromFlags(
  base: { provider: string; model: string; baseUrl: string | null } | null,
  flags: { provider?: string; 'base-url'?: string; model?: string },
  apiKeyFor: (provider: ModelConfig['provider']) => string | null,
  engine: EngineId,
): ModelConfig | null {
  const candidate = {
    provider: flags.provider ?? base?.provider,
    model: flags.model ?? base?.model,
    baseUrl:
      flags['base-url'] ??
      (flags.provider && flags.provider !== base?.provider ? null : base?.baseUrl) ??
      null,
  }
  if (!candidate.provider || !candidate.model) {
    // An agent engine works without a provider: the parse falls back to its template.
    if (engine !== 'built-in') return null
    throw new AppError(
      'config',
      'No LLM provider is configured. Pass --provider and --model, run `ralph config set provider …` and `ralph config set model …`, or set RALPH_PROVIDER and RALPH_MODEL.',
    )
  }
  const parsed = providerSettingsSchema.safeParse(candidate)
  if (!parsed.success) throw new AppError('config', describeIssues(parsed.error.issues))
  return { ...parsed.data, baseUrl: parsed.data.baseUrl ?? null, apiKey: apiKeyFor(parsed.data.provider) }
}

/** --engine: one of the engines, or a usage error listing them. */
function engineOf(value: string): EngineId {
  try {
    return parseEngineId(value)
  } catch (err) {
    throw usageError('run', (err as Error).message)
  }
}

export const runCommand: CliCommand = {
  name: 'run',
  usage,
  options: {
    provider: { type: 'string' },
    'base-url': { type: 'string' },
    model: { type: 'string' },
    'max-iterations': { type: 'string' },
    'max-cost': { type: 'string' },
    'max-tokens': { type: 'string' },
    'no-wait': { type: 'boolean' },
    resume: { type: 'boolean' },
    answer: { type: 'boolean' },
    new: { type: 'boolean' },
    image: { type: 'string', multiple: true },
    engine: { type: 'string' },
  },
  async run(ctx) {
    const message = ctx.positionals.join(' ').trim()
    const resume = ctx.values.resume === true
    if (resume && message) {
      throw usageError(
        'run',
        '--resume continues the interrupted task with its own request: leave the message out, or drop --resume to start a new task.',
      )
    }
    if (!message && !resume) throw usageError('run', 'Give the task as a message.')
    // The API's limits (src/shared/api/tasks.ts), so a task takes the same request from every host.
    if (message.length > MESSAGE_MAX_CHARS) throw usageError('run', messageTooLong(message.length))
    const imagePaths = (ctx.values.image as string[] | undefined) ?? []
    if (imagePaths.length > MAX_TASK_IMAGES)
      throw usageError(
        'run',
        `Attach at most ${MAX_TASK_IMAGES} images to a task (--image was given ${imagePaths.length} times).`,
      )
    if (resume && imagePaths.length)
      throw usageError('run', '--resume continues a task with the images it has: leave --image out.')
    // Checked before anything starts: a bad file is a usage error that names it and says what to do.
    // One at a time: each is decoded in full, and a few large ones at once would add up.
    const images = []
    for (const p of imagePaths) images.push(await loadImageFile(resolve(p)))
    const maxIterations = intFlag(ctx.values, 'max-iterations', 'run', 1)
    const maxCostUsd = costFlag(ctx.values)
    const maxTokens = tokensFlag(ctx.values)
    const flags = {
      provider: stringFlag(ctx.values, 'provider'),
      'base-url': stringFlag(ctx.values, 'base-url'),
      model: stringFlag(ctx.values, 'model'),
    }

    const projectDir = checkProjectFolder(ctx.projectDir)
    const engineFlag = stringFlag(ctx.values, 'engine')
    const engine =
      engineFlag !== undefined ? engineOf(engineFlag) : (await readProjectEngine(projectDir)).engine
    await warnIfUnsandboxed(ctx.stderr)
    const services = openCliServices(ctx.env, 'run')
    try {
      const { providerSettings, apiKeys, projects, db, settings } = services
      const configured = modelFromFlags(
        providerSettings.effective().value,
        flags,
        (p) => apiKeys.resolve(p),
        engine,
      )
      const model = configured && { ...configured, localContextMax: providerSettings.localContextMax() }
      const fastModel = model && providerSettings.fastModelConfig(model)
      // An engine reads the images itself; the built-in loop's model may not see them.
      if (
        engine === 'built-in' &&
        model &&
        images.length &&
        !(await resolveSeesImages(model, services.logger))
      )
        ctx.stderr.write(
          `Note: ${model.model} cannot see images; the task goes on with a note naming the ${images.length} attached image(s) instead.\n`,
        )
      const project = projects.upsert(projectDir, basename(projectDir) || projectDir, Date.now())
      const newTask = await checkWaiting(projectDir, new RunsRepo(db), ctx.values, resume)
      let streamingText = false
      const countdown = new LimitCountdown(ctx.stdout)
      const result = await runTask({
        projectDir,
        message,
        resume,
        newTask,
        model,
        fastModel,
        maxIterations,
        ...(engineFlag !== undefined ? { engine } : {}),
        ...(images.length ? { images } : {}),
        ...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
        ...(maxTokens !== undefined ? { maxTokens } : {}),
        signal: ctx.signal,
        runs: new RunsRepo(db),
        projectId: project.id,
        snapshotIndex: new SnapshotsRepo(db).indexFor(project.id),
        prices: loadPriceOverrides(settings),
        contextWindows: loadContextWindowOverrides(settings),
        waitForLimits: ctx.values['no-wait'] !== true,
        logger: services.logger,
        env: ctx.env,
        mcpServers: new AppMcpServers(db, services.host.vault ?? new FileVault(services.appDataDir)),
        emit: (event) => {
          countdown.stop()
          if (ctx.json) {
            if (NDJSON_TYPES.has(event.type)) writeJson(ctx.stdout, event)
            return
          }
          if (streamingText) {
            ctx.stdout.write('\n')
            streamingText = false
          }
          if (event.type === 'limit.waiting') {
            countdown.start(event.resetAt)
            return
          }
          const line =
            resume && event.type === 'task.started'
              ? `▶ Task ${event.task} resumes: ${event.message.split('\n')[0]!.slice(0, 100)}`
              : formatLoopEvent(event)
          if (line) ctx.stdout.write(`${line}\n`)
          if (event.type === 'clarification.needed')
            ctx.stdout.write('  Answer with: ralph run --answer "<your answer>"\n')
        },
        onTextDelta: (_task, _iteration, text) => {
          if (ctx.json) return
          if (!streamingText) ctx.stdout.write('    … ')
          streamingText = true
          ctx.stdout.write(text.replace(/\n/g, ' '))
        },
      })
      countdown.stop()
      return exitFor(result)
    } finally {
      services.close()
    }
  },
}

/**
 * A task waiting for an answer is continued only on purpose (#26): \`--answer\` says the message is the answer,
 * \`--new\` starts a new task beside it; a plain run while one waits is refused. Returns whether to start a new
 * task whatever waits.
 */
async function checkWaiting(
  projectDir: string,
  runs: RunsRepo,
  values: FlagValues,
  resume: boolean,
): Promise<boolean> {
  const answer = values.answer === true
  const fresh = values.new === true
  if (answer && (fresh || resume))
    throw usageError('run', '--answer continues the waiting task: leave out --new and --resume.')
  if (resume) return false
  const pending = await pendingQuestion(projectDir, runs)
  if (answer && !pending) {
    throw usageError('run', 'No task waits for an answer: drop --answer to start a new task.')
  }
  if (pending && !answer && !fresh) {
    const question = pending.question ? ` (“${pending.question}”)` : ''
    throw usageError(
      'run',
      `Task ${pending.task} waits for your answer to its question${question}. Answer it with ` +
        `\`ralph run --answer "<answer>"\`, or start a new task with \`ralph run --new "<message>"\`.`,
    )
  }
  return fresh
}

/**
 * The "waiting for the usage limit" line: rewritten every second on a terminal; elsewhere (a log, a pipe) printed
 * once and then every ten minutes, so a night-long wait leaves a readable log.
 */
class LimitCountdown {
  private timer: ReturnType<typeof setInterval> | null = null
  private readonly tty: boolean

  constructor(private readonly out: NodeJS.WritableStream & { isTTY?: boolean }) {
    this.tty = out.isTTY === true
  }

  start(resetAt: string): void {
    this.stop()
    const draw = () =>
      this.out.write(
        this.tty ? `\r\x1b[2K${formatLimitCountdown(resetAt)}` : `${formatLimitCountdown(resetAt)}\n`,
      )
    draw()
    this.timer = setInterval(draw, this.tty ? 1000 : 600_000)
    this.timer.unref()
  }

  stop(): void {
    if (!this.timer) return
    clearInterval(this.timer)
    this.timer = null
    if (this.tty) this.out.write('\n')
  }
}
