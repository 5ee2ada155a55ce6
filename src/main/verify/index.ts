import type { Criterion } from '../../shared/queue'
import { AppError } from '../../shared/errors'
import type { QueueCriterionVerdict, QueueVerifyEvent } from '../../shared/queueBuild'
import { mapLimited } from '../../shared/mapLimited'
import { combineOutcome, type VerifyOutcome } from '../../shared/verdicts'
import { readAttachments, resolveSeesImages, type ImageAttachment } from '../attachments'
import type { ModelConfig, RetryPolicy, PriceOverrides, UsageSink } from '../llm'
import { RalphState, type LoopConfig, findRulesFiles, rulesSection } from '../loop'
import { parseCriteria, untaggedWarning } from '../queue'
import { SnapshotEngine } from '../snapshots'
import type { VerdictsRepo } from '../store'
import { runShellCommand } from '../tools'
import { collectChanges } from './changes'
import { runDeterministicChecks, type RunCommand } from './checks'
import { buildEvidence } from './evidence'
import { judgeCriterion } from './judge'
import { newNonce } from './verdictBlock'
import { noteFailure, type Logger } from '../workspace'

/**
 * Verification of one finished task (DESIGN.md §16, seed 004 verify_task): deterministic checks first — a
 * failure there is FAIL without any model call — then one fresh model call per LLM criterion with its own
 * evidence bundle, answered by a block sealed with this verification's nonce. Combined: a DET failure or any NO
 * is FAIL; otherwise any NEEDS_HUMAN is NEEDS_HUMAN; otherwise PASS.
 */

export type { VerifyOutcome }
export { combineOutcome }

/** One criterion's (or deterministic check's) verdict: the contract's shape (shared/queueBuild.ts). */
export type CriterionVerdict = QueueCriterionVerdict

export type VerifyEvent = QueueVerifyEvent

export interface VerifyRequest {
  projectDir: string
  task: {
    id: string
    name: string
    notes?: string
    accept: string | readonly string[] | undefined
    /** The task's estimated diff in changed lines; the diff-size check runs only with one. */
    estimatedDiff?: number | null
  }
  /** The task's pre snapshot tag. */
  fromTag: string
  /** Its post snapshot tag. */
  toTag: string
  /** Null: no provider, so every LLM criterion is NEEDS_HUMAN. */
  model: ModelConfig | null
  signal: AbortSignal
  verdicts?: VerdictsRepo | null
  projectId?: number | null
  runId?: number | null
  /** The lifecycle task whose work is verified (its snapshots' number), for the usage entries. */
  taskNumber?: number | null
  /** Where each verdict call's tokens and cost go (llm_usage, purpose `verify`); the caller attributes them. */
  usage?: UsageSink
  emit?(event: VerifyEvent): void
  /** LLM criteria verified at once. Default 4. */
  concurrency?: number
  /** The caller's snapshot engine (read-only use); one is opened on projectDir otherwise. */
  engine?: SnapshotEngine
  /** `.ralph/config.json` as the caller read it; read here otherwise. */
  config?: LoopConfig
  /** Base environment for the project's commands (default process.env; always allowlisted). */
  env?: NodeJS.ProcessEnv
  /** Runs a project command; default: the sandboxed shell the quality gates use. */
  runCommand?: RunCommand
  prices?: PriceOverrides
  retry?: Partial<RetryPolicy>
  /** Evidence bundle size in characters (default about 4K tokens). */
  evidenceChars?: number
  /** Where a listener's failure is recorded (it never changes the verdict); the build passes the core's. */
  logger: Logger
  /** The project the verdicts belong to when projectDir is a lane's working copy (default projectDir). */
  recordAs?: { projectPath: string }
  /**
   * Called once the evidence is gathered and the model's verdicts are about to be asked for, with this
   * verification's nonce: from then on projectDir is no longer read, so its folder may be used for other work (a
   * lanes build verifies the merged tree there meanwhile). Not called when no model call follows (a deterministic
   * check failed, or no LLM criterion).
   */
  onGathered?(nonce: string): void
}

export interface VerifyResult {
  outcome: VerifyOutcome
  nonce: string
  verdicts: CriterionVerdict[]
  costUsd: number
  /** The failing (or undecided) reasons, written for the next attempt; '' on PASS. */
  feedback: string
  /** Model requests made (0 when a deterministic check failed). */
  modelCalls: number
  /** Notes for the user: untagged criteria, verdicts that could not be stored. */
  warnings: string[]
}

export { parseVerdictBlock, newNonce, formatVerdictBlock, NONCE_PATTERN } from './verdictBlock'
export { criterionCommand } from './checks'

const DEFAULT_CONCURRENCY = 4

const label = (v: CriterionVerdict) =>
  /^AC\d+$/.test(v.ref) ? `${v.ref} (${v.kind}: ${v.text})` : `${v.ref} check`

/** What the next attempt needs to know, in the loop's feedback style. */
export function verifyFeedback(outcome: VerifyOutcome, verdicts: readonly CriterionVerdict[]): string {
  if (outcome === 'PASS') return ''
  const failing = verdicts.filter((v) => v.answer === 'NO')
  const undecided = verdicts.filter((v) => v.answer === 'NEEDS_HUMAN')
  const lines =
    outcome === 'FAIL'
      ? [
          '# Verification failed',
          '',
          'The task was checked against its acceptance criteria and was rejected:',
          '',
          ...failing.map((v) => `- FAIL ${label(v)}: ${v.reason}`),
          ...(undecided.length ? ['', ...undecided.map((v) => `- UNDECIDED ${label(v)}: ${v.reason}`)] : []),
          '',
          'Fix every FAIL above; the criteria are checked again when the task is complete.',
        ]
      : [
          '# Verification needs a person',
          '',
          'These criteria could not be decided automatically:',
          '',
          ...undecided.map((v) => `- ${label(v)}: ${v.reason}`),
        ]
  return `${lines.join('\n')}\n`
}

export async function verifyTask(req: VerifyRequest): Promise<VerifyResult> {
  const started = performance.now()
  if (req.signal.aborted) throw new AppError('cancelled', 'Verification was stopped.')
  const nonce = newNonce()
  const taskId = req.task.id
  const criteria: Criterion[] = parseCriteria(req.task.accept)
  const warnings = criteria.filter((c) => !c.tagged).map((c) => untaggedWarning(taskId, c))
  const emit = (event: VerifyEvent) => {
    try {
      req.emit?.(event)
    } catch (err) {
      // A listener's failure must not change the verdict; recorded when the caller passes a logger.
      if (req.logger) noteFailure(req.logger, 'A verification listener failed (the verdict stands)', err)
    }
  }
  emit({
    type: 'verify.started',
    taskId,
    nonce,
    criteria: criteria.map((c) => ({ ref: c.ref, kind: c.kind, text: c.text })),
    warnings,
  })

  const verdicts: CriterionVerdict[] = []
  const record = (v: CriterionVerdict, repaired = false) => {
    verdicts.push(v)
    const stored = storeVerdict(req, nonce, v)
    if (stored) warnings.push(stored)
    emit({ type: 'verify.criterion', taskId, nonce, verdict: v, repaired })
  }

  const engine = req.engine ?? new SnapshotEngine({ projectDir: req.projectDir, logger: req.logger })
  const files = await collectChanges(engine, req.fromTag, req.toTag)
  const config = req.config ?? (await new RalphState(req.projectDir).config())
  const runCommand: RunCommand =
    req.runCommand ??
    ((command, timeoutMs, signal) =>
      runShellCommand(command, { cwd: req.projectDir, timeoutMs, signal, env: req.env, logger: req.logger }))
  const det = await runDeterministicChecks({
    files,
    estimatedDiff: req.task.estimatedDiff,
    commands: config.commands,
    commandTimeoutMs: config.commandTimeoutMs,
    criteria,
    runCommand,
    signal: req.signal,
  })
  if (req.signal.aborted) throw new AppError('cancelled', 'Verification was stopped.')
  for (const v of det.verdicts) record({ ...v, kind: 'DET', costUsd: 0 })

  const detFailed = det.verdicts.some((v) => v.answer === 'NO')
  const llm = criteria.filter((c) => c.kind === 'LLM')
  // A rules file the task itself wrote is the model's words, not the project's: it must not reach the judge.
  const touched = new Set(files.flatMap((f) => [f.path, ...(f.oldPath ? [f.oldPath] : [])]))
  const rules =
    llm.length > 0
      ? rulesSection((await findRulesFiles(req.projectDir)).filter((r) => !touched.has(r.path)))
      : ''
  // The task's attached images (a mockup, a screenshot of the bug) are evidence too.
  const images =
    llm.length > 0 && req.taskNumber
      ? await readAttachments(req.projectDir, req.taskNumber, req.logger, req.model)
      : []
  const seesImages = images.length > 0 ? await resolveSeesImages(req.model, req.logger) : true
  const judges = !detFailed && llm.length > 0
  if (judges && req.model && req.onGathered) {
    try {
      req.onGathered(nonce)
    } catch (err) {
      noteFailure(req.logger, 'A verification listener failed (the verdict stands)', err)
    }
  }
  const modelCalls = judges
    ? await judgeAll(req, { nonce, llm, files, det, rules, images, seesImages, record })
    : 0

  // Checks first, then criteria in AC order, whatever order the parallel calls finished in.
  const order = (v: CriterionVerdict) => (/^AC(\d+)$/.exec(v.ref) ? Number(v.ref.slice(2)) : 0)
  verdicts.sort((a, b) => order(a) - order(b))
  const outcome = combineOutcome(verdicts)
  const costUsd = Math.round(verdicts.reduce((n, v) => n + v.costUsd, 0) * 1e8) / 1e8
  const feedback = verifyFeedback(outcome, verdicts)
  emit({
    type: 'verify.completed',
    taskId,
    nonce,
    outcome,
    costUsd,
    feedback,
    durationMs: Math.round(performance.now() - started),
  })
  return { outcome, nonce, verdicts, costUsd, feedback, modelCalls, warnings }
}

/** Stores one verdict when the caller keeps them; the warning to show when it could not be stored, else null. */
function storeVerdict(req: VerifyRequest, nonce: string, v: CriterionVerdict): string | null {
  if (!req.verdicts) return null
  try {
    req.verdicts.insert({
      projectId: req.projectId ?? null,
      projectPath: req.recordAs?.projectPath ?? req.projectDir,
      runId: req.runId ?? null,
      taskId: req.task.id,
      nonce,
      ref: v.ref,
      kind: v.kind,
      criterion: v.text,
      answer: v.answer,
      reason: v.reason,
      costUsd: v.costUsd,
    })
    return null
  } catch (err) {
    return `The verdict for ${v.ref} could not be stored: ${(err as Error).message}`
  }
}

interface JudgeAllInput {
  nonce: string
  llm: Criterion[]
  files: Awaited<ReturnType<typeof collectChanges>>
  det: Awaited<ReturnType<typeof runDeterministicChecks>>
  rules: string
  images: ImageAttachment[]
  seesImages: boolean
  record: (v: CriterionVerdict, repaired?: boolean) => void
}

/** One model call per LLM criterion (NEEDS_HUMAN without a model), a few at once; the model requests made. */
async function judgeAll(
  req: VerifyRequest,
  { nonce, llm, files, det, rules, images, seesImages, record }: JudgeAllInput,
): Promise<number> {
  let modelCalls = 0
  await mapLimited(llm, req.concurrency ?? DEFAULT_CONCURRENCY, async (c) => {
    if (req.signal.aborted) throw new AppError('cancelled', 'Verification was stopped.')
    if (!req.model) {
      record({
        ref: c.ref,
        kind: 'LLM',
        text: c.text,
        answer: 'NEEDS_HUMAN',
        reason:
          'No LLM provider is configured, so no model could judge this criterion. Set one with ralph config set.',
        costUsd: 0,
      })
      return
    }
    const evidence = buildEvidence({
      criterion: c,
      task: { id: req.task.id, name: req.task.name, notes: req.task.notes },
      files,
      checks: det.verdicts,
      outputs: det.outputs,
      budgetChars: req.evidenceChars,
    })
    const judged = await judgeCriterion({
      model: req.model,
      ref: c.ref,
      nonce,
      evidence: evidence.text,
      signal: req.signal,
      logger: req.logger,
      prices: req.prices,
      retry: req.retry,
      usage: req.usage,
      taskNumber: req.taskNumber ?? null,
      rules,
      images,
      seesImages,
    })
    modelCalls += judged.calls
    record(
      {
        ref: c.ref,
        kind: 'LLM',
        text: c.text,
        answer: judged.answer,
        reason: judged.reason,
        costUsd: judged.costUsd,
      },
      judged.repaired,
    )
  })
  return modelCalls
}
