import {
  brainstormDomains,
  type BrainstormDocuments,
  type BrainstormStatements,
  type BrainstormTheme,
  type BrainstormEvent,
  type BrainstormPending,
  type BrainstormPhase,
  type BrainstormState,
  type BrainstormView,
  type Facilitation,
} from '../../shared/brainstorm'
import type { ModelConfig, RetryPolicy } from '../llm'
import type { Logger } from '../workspace'
import type { BrainstormRepo, BrainstormSessionRow, StoredIdea } from '../store'
import { normalizeStatements, normalizeThemes } from './agreements'
import { keptCaptures } from './capture'
import { choiceText, resolveChoice } from './choices'
import { lineCount, validateDocuments } from './documents'
import { ideaId, updateLedger } from './ledger'
import { draftDocuments, facilitate, reviewDocuments, type CallOptions } from './modelCalls'
import { newSessionState } from './newSession'
import { seedQueueFromRoadmap } from './seedQueue'
import { facilitationPrompt, outputPrompt, reviewPrompt } from './prompts'
import { readProjectContext } from './projectContext'
import {
  DELTAS_AFTER,
  directiveFor,
  INTERRUPTS,
  energyCheckDue,
  organizeAllowed,
  ORGANIZE_MIN_IDEAS,
  scheduleAfterIdeas,
} from './scheduler'
import { EXCHANGES_PER_LENS } from './techniques'
import {
  answerChoice,
  answerOpen,
  choice,
  failedChoice,
  nextFinding,
  phaseEvent,
  rotateLens,
  writeChoice,
  type Effect,
  type Transition,
} from './transitions'
import { docExists, docFile, draftFile, readHandDraft, writeDocuments, writeHandDraft } from './writeOutputs'

export interface BrainstormDeps {
  projectDir: string
  projectId: number | null
  repo: BrainstormRepo
  model: ModelConfig
  signal: AbortSignal
  emit: (event: BrainstormEvent) => void
  retry?: Partial<RetryPolicy>
  onUsage?: CallOptions['onUsage']
  /** The estimated USD of one call's tokens, kept with the session's usage (0 when the model has no price). */
  priceOf?: (usage: { inputTokens: number; outputTokens: number }) => number
  /** For the random technique plan (tests pin it). */
  random?: () => number
  /** Where failures the session survives are recorded. */
  logger: Logger
}

/** What an answer did: taken, not understood (asked again), or the user chose to stop here for now. */
export type AnswerOutcome = 'taken' | 'again' | 'paused'

const RECENT_MESSAGES = 12

/**
 * One brainstorm session: the state machine of DESIGN.md §17 over seed 004's phases. The harness owns the
 * counts, the ids, the schedule and the gates; the model only facilitates. Every step is saved before the next
 * one starts, so a session resumes at the same phase with the same ledger after the process dies.
 */
export class BrainstormSession {
  private constructor(
    private readonly deps: BrainstormDeps,
    readonly id: number,
    private s: BrainstormState,
  ) {}

  /** Resumes the project's unfinished session, or starts one (`quick` applies only to a new session). */
  static async open(deps: BrainstormDeps, options: { quick?: boolean } = {}): Promise<BrainstormSession> {
    const latest = deps.repo.latest(deps.projectDir)
    if (latest && latest.state.phase !== 'done') {
      const session = new BrainstormSession(deps, latest.id, latest.state)
      const st = latest.state
      deps.emit({ type: 'brainstorm.phase', from: null, to: st.phase })
      deps.emit({
        type: 'brainstorm.say',
        text: `Resuming your ${st.mode === 'quick' ? 'quick ' : ''}brainstorm at ${st.phase.toUpperCase()} with ${st.ideaCount} idea${st.ideaCount === 1 ? '' : 's'}.`,
      })
      return session
    }
    const state = newSessionState(
      options.quick ? 'quick' : 'full',
      await readProjectContext(deps.projectDir, deps.logger),
    )
    const row = deps.repo.create(deps.projectDir, deps.projectId, state)
    const session = new BrainstormSession(deps, row.id, state)
    deps.emit({ type: 'brainstorm.phase', from: null, to: state.phase })
    await session.persist()
    return session
  }

  /** Wraps a stored session as it is (any phase), without announcing anything: what a host reads to show it. */
  static fromRow(deps: BrainstormDeps, row: BrainstormSessionRow): BrainstormSession {
    return new BrainstormSession(deps, row.id, row.state)
  }

  /**
   * The user's own edits of what ORGANIZE or CRYSTALLIZE proposed (the wizard's board and cards). They replace the
   * model's version and are what the next turns and OUTPUT read; saved at once.
   */
  async adjust(patch: { themes?: BrainstormTheme[]; statements?: BrainstormStatements }): Promise<void> {
    if (patch.themes) this.s.themes = normalizeThemes(patch.themes, this.s.ideaCount)
    if (patch.statements) this.s.statements = normalizeStatements(patch.statements)
    await this.persist()
  }

  get state(): Readonly<BrainstormState> {
    return this.s
  }
  get pending(): BrainstormPending | null {
    return this.s.pending
  }
  /** Done and nothing left to ask (the work-queue offer after writing is optional). */
  get finished(): boolean {
    return this.s.phase === 'done' && this.s.pending === null
  }
  /** Set when the documents or the review could not be obtained; the session waits for "Try again". */
  get failed(): boolean {
    return this.s.failure !== null
  }

  /** The session as a host shows it: counters, the question, the drafts with their line counts, the findings. */
  view(): BrainstormView {
    const s = this.s
    const next = INTERRUPTS.find((i) => !s.interruptsDone.includes(i.at))
    return {
      id: this.id,
      mode: s.mode,
      phase: s.phase,
      pending: s.pending,
      pitch: s.pitch,
      ideaCount: s.ideaCount,
      domainsCovered: Object.keys(s.domains).filter((d) => (s.domains[d] ?? 0) > 0),
      lens: s.technique.plan[s.technique.index] ?? null,
      nextPivotAt: s.nextPivotAt,
      nextInterruptAt: next?.at ?? null,
      recentIdeas: this.deps.repo
        .ideas(this.id)
        .slice(-5)
        .map((i) => ({ id: ideaId(i.number), title: i.title, domain: i.domain })),
      drafts: s.drafts
        ? { ...s.drafts, visionLines: lineCount(s.drafts.vision), roadmapLines: lineCount(s.drafts.roadmap) }
        : null,
      problems: s.failure?.problems ?? [],
      findings: s.findings,
      written: s.written,
    }
  }

  /** Runs the model work that is due, then shows what the session asks the user (again, after a resume). */
  async run(): Promise<void> {
    while (this.s.due) {
      const due = this.s.due
      if (due === 'facilitate') await this.facilitateTurn()
      else if (due === 'output' || due === 'revise') await this.outputTurn(due)
      else await this.reviewTurn()
    }
    this.announce()
  }

  /** The answer --yes takes for the pending question (null for an open question). */
  defaultAnswer(): string | null {
    return this.s.pending?.kind === 'choice' ? this.s.pending.default : null
  }

  /** The user's answer to the pending question; model work it triggers runs before this returns. */
  async answer(text: string): Promise<AnswerOutcome> {
    const pending = this.s.pending
    if (!pending) return 'again'
    if (pending.kind === 'choice') {
      const value = resolveChoice(pending, text)
      if (value === null) {
        // Asked again briefly: the question itself (a whole document, say) is still on screen.
        const options = pending.options.map((o, i) => `${i + 1} (${o.label.split(':')[0]})`).join(', ')
        this.announce(`Please answer with one of: ${options}.`)
        return 'again'
      }
      const label = pending.options.find((o) => o.value === value)!.label
      this.deps.repo.addMessage(this.id, { role: 'user', phase: this.s.phase, text: `(chose: ${label})` })
      const outcome = await this.apply(answerChoice(this.s, pending.id, value, this.deps.random))
      if (outcome === 'paused') {
        await this.persist()
        return outcome
      }
    } else {
      const answer = text.trim()
      if (!answer) {
        this.announce()
        return 'again'
      }
      this.deps.repo.addMessage(this.id, { role: 'user', phase: this.s.phase, text: answer })
      await this.apply(answerOpen(this.s, pending.id, answer))
    }
    await this.persist()
    await this.run()
    return 'taken'
  }

  // ---- answers ----

  /** Takes a transition's state, then emits its events and runs its follow-ups in order. */
  private async apply(t: Transition): Promise<Transition['outcome']> {
    this.s = t.state
    for (const effect of t.effects) await this.runEffect(effect)
    return t.outcome
  }

  private async runEffect(effect: Effect): Promise<void> {
    switch (effect.type) {
      case 'emit':
        return this.deps.emit(effect.event)
      case 'ask-files':
        return this.askFiles()
      case 'ask-ideate-again':
        this.s.pending = {
          kind: 'open',
          id: 'ideate',
          text: this.lastSay() ?? 'Go on: what else comes to mind?',
        }
        return
      case 'write':
        return this.write()
      case 'seed-queue':
        return this.seedQueue()
      case 'use-hand-draft':
        return this.useHandDraft()
      default: {
        const _exhaustive: never = effect
        return _exhaustive
      }
    }
  }

  // ---- phases ----

  private setPhase(to: BrainstormPhase): void {
    const event = phaseEvent(this.s, to)
    if (!event) return
    this.deps.emit(event)
    this.s.phase = to
  }

  private toOutput(): void {
    this.setPhase('output')
    this.s.due = 'output'
  }

  private lastSay(): string | null {
    const recent = this.deps.repo.recentMessages(this.id, 4).filter((m) => m.role === 'facilitator')
    return recent.at(-1)?.text ?? null
  }

  // ---- model turns ----

  private calls(): CallOptions {
    return {
      model: this.deps.model,
      signal: this.deps.signal,
      retry: this.deps.retry,
      onUsage: (purpose, usage, durationMs) => {
        // Kept with the session (saved with its next step), so the wizard can show what the brainstorm cost.
        const u = this.s.usage
        u.calls += 1
        u.inputTokens += usage.inputTokens
        u.outputTokens += usage.outputTokens
        u.usd += this.deps.priceOf?.(usage) ?? 0
        this.deps.onUsage?.(purpose, usage, durationMs)
      },
    }
  }

  private async facilitateTurn(): Promise<void> {
    const s = this.s
    const ideas = this.deps.repo.ideas(this.id)
    const recent = this.deps.repo.recentMessages(this.id, RECENT_MESSAGES)
    const reply = await facilitate(this.calls(), facilitationPrompt({ state: s, ideas, recent }))
    const answered = s.lastAnswer !== ''
    const added = this.capture(reply, ideas.length ? ideas.at(-1)!.number : 0)
    if (s.phase === 'organize' && reply.themes?.length) s.themes = normalizeThemes(reply.themes, s.ideaCount)
    if (s.phase === 'crystallize' && reply.statements) s.statements = normalizeStatements(reply.statements)
    s.directive = null
    s.lastAnswer = ''
    s.due = null
    this.deps.repo.addMessage(this.id, { role: 'facilitator', phase: s.phase, text: reply.say })

    switch (s.phase) {
      case 'setup':
        if (reply.pitch?.trim()) s.pitch = reply.pitch.trim()
        s.pending =
          reply.phaseDone && s.pitch
            ? choice(
                'confirm-pitch',
                `${reply.say}\n\nPitch: ${s.pitch}`,
                [
                  { value: 'yes', label: "Yes, that's it" },
                  { value: 'no', label: 'Not quite' },
                ],
                'yes',
              )
            : { kind: 'open', id: 'setup', text: reply.say }
        break
      case 'ideate':
        this.afterIdeateTurn(reply, answered, added)
        break
      case 'organize':
      case 'crystallize':
        if (reply.phaseDone) {
          this.deps.emit({ type: 'brainstorm.say', text: reply.say })
          if (s.phase === 'organize') {
            this.setPhase('crystallize')
            s.due = 'facilitate'
          } else this.toOutput()
        } else s.pending = { kind: 'open', id: s.phase, text: reply.say }
        break
      default:
        s.pending = { kind: 'open', id: s.phase, text: reply.say }
    }
    await this.persist(added)
  }

  /** Keeps the captures quoted from the user's last answer, numbers them and counts their domains. */
  private capture(reply: Facilitation, lastNumber: number): StoredIdea[] {
    const s = this.s
    const added = keptCaptures(reply.captured, s.lastAnswer).map((c, i) => ({
      number: lastNumber + i + 1,
      domain: c.domain,
      title: c.title,
      description: c.description,
      novelty: c.novelty,
      quote: c.quote,
    }))
    for (const idea of added) {
      s.domains[idea.domain] = (s.domains[idea.domain] ?? 0) + 1
      this.deps.emit({
        type: 'brainstorm.idea',
        id: ideaId(idea.number),
        title: idea.title,
        domain: idea.domain,
      })
    }
    s.ideaCount = lastNumber + added.length
    return added
  }

  private afterIdeateTurn(reply: Facilitation, answered: boolean, added: StoredIdea[]): void {
    const s = this.s
    const notes: string[] = []
    const events = scheduleAfterIdeas(s)
    for (const e of events) {
      if (e.type === 'pivot') {
        this.deps.emit({ type: 'brainstorm.pivot', to: e.to, at: e.at })
        notes.push(`Next: ${brainstormDomains.find((d) => d.tag === e.to)!.name}.`)
      } else if (e.type === 'interrupt') {
        this.deps.emit({ type: 'brainstorm.interrupt', kind: e.kind, at: e.at })
      }
    }
    const directives = [directiveFor(events)]
    let energy = false
    if (answered) {
      energy = energyCheckDue(s)
      s.technique.exchangesOnLens += 1
      if (s.technique.exchangesOnLens >= EXCHANGES_PER_LENS) rotateLens(s)
    }
    if (reply.phaseDone) {
      if (organizeAllowed(s, false)) {
        this.deps.emit({ type: 'brainstorm.say', text: reply.say })
        this.setPhase('organize')
        s.directive = null
        s.due = 'facilitate'
        return
      }
      // BMAD #1249: the model may not wind the session down early; the gate is the harness's.
      directives.push(
        `Not yet: only ${s.ideaCount} ideas. Stay divergent until ${ORGANIZE_MIN_IDEAS} or until the user asks to organize.`,
      )
    }
    s.directive = [s.directive, ...directives].filter(Boolean).join('\n') || null
    if (s.ideaCount >= DELTAS_AFTER && added.length) notes.push(this.deltas(added))
    const text = [reply.say, ...notes].join('\n\n')
    s.pending = energy
      ? choice(
          'energy',
          `${text}\n\nWe have ${s.ideaCount} ideas. Keep pushing on this angle, switch technique, or start organizing?`,
          [
            { value: 'keep', label: 'Keep going' },
            { value: 'switch', label: 'Switch technique' },
            { value: 'organize', label: 'Organize' },
          ],
          'keep',
        )
      : { kind: 'open', id: 'ideate', text }
  }

  /** After 30 ideas the chat shows only this: count, last 5 ids, lens, next pivot (seed 004 ledger hygiene). */
  private deltas(added: StoredIdea[]): string {
    // the new ideas are not stored yet: this turn saves them with the state
    const last = [...this.deps.repo.ideas(this.id), ...added].slice(-5).map((i) => ideaId(i.number))
    const lens = this.s.technique.plan[this.s.technique.index] ?? '(none)'
    return `Ideas: ${this.s.ideaCount} · last: ${last.join(', ')} · lens: ${lens} · next pivot at ${this.s.nextPivotAt}`
  }

  private async outputTurn(step: 'output' | 'revise'): Promise<void> {
    const s = this.s
    const ideas = this.deps.repo.ideas(this.id)
    const recent = this.deps.repo.recentMessages(this.id, RECENT_MESSAGES)
    const apply = step === 'revise' ? s.findings.filter((f) => f.decision === 'apply') : []
    const result = await draftDocuments(
      this.calls(),
      outputPrompt({ state: s, ideas, recent, changeRequest: s.changeRequest, apply }),
    )
    s.due = null
    if (!result.ok) {
      s.failure = { step, problems: result.problems }
      await writeHandDraft(this.deps.projectDir, result.docs)
      this.deps.emit({
        type: 'brainstorm.error',
        message:
          'The documents are still invalid after one correction; nothing was written. The draft is in ' +
          '.ralph/brainstorm/draft/: fix it by hand, then choose "Use my edited draft".',
        problems: result.problems,
      })
      s.pending = failedChoice(s.failure)
      await this.persist()
      return
    }
    this.acceptDrafts(result.docs, step)
    await this.persist()
  }

  private acceptDrafts(docs: BrainstormDocuments, step: 'output' | 'revise'): void {
    const s = this.s
    s.drafts = docs
    s.changeRequest = null
    if (step === 'revise') {
      this.askFiles()
      return
    }
    s.pending = choice(
      'drafts',
      `${docs.vision}\n\n${docs.roadmap}\n\nVISION.md: ${lineCount(docs.vision)}/80 lines · ROADMAP.md: ${lineCount(docs.roadmap)}/120 lines.`,
      [
        { value: 'review', label: 'Looks right: run the review' },
        { value: 'change', label: 'Change something' },
      ],
      'review',
    )
  }

  /** The user fixed the refused draft by hand: validated the same way as the model's. */
  private async useHandDraft(): Promise<void> {
    const s = this.s
    const step = s.failure?.step === 'revise' ? 'revise' : 'output'
    const docs = await readHandDraft(this.deps.projectDir, this.deps.logger)
    const problems = docs ? validateDocuments(docs) : ['The draft in .ralph/brainstorm/draft/ is missing.']
    if (!docs || problems.length) {
      s.failure = { step, problems }
      this.deps.emit({ type: 'brainstorm.error', message: 'The edited draft is still invalid.', problems })
      s.pending = failedChoice(s.failure)
      return
    }
    s.failure = null
    this.acceptDrafts(docs, step)
  }

  private async reviewTurn(): Promise<void> {
    const s = this.s
    const result = await reviewDocuments(this.calls(), reviewPrompt(s.drafts!))
    s.due = null
    if (!result.ok) {
      s.failure = { step: 'review', problems: result.problems }
      this.deps.emit({ type: 'brainstorm.error', message: result.problems[0]!, problems: result.problems })
      s.pending = failedChoice(s.failure)
    } else {
      s.findings = result.findings.map((f) => ({ ...f, decision: null }))
      this.deps.emit({ type: 'brainstorm.findings', findings: result.findings })
      this.nextFindingOrFiles()
    }
    await this.persist()
  }

  // ---- review decisions and files ----

  private nextFindingOrFiles(): void {
    const next = nextFinding(this.s)
    if (next === 'revise') this.s.due = 'revise'
    else if (next === 'files') this.askFiles()
    else this.s.pending = next
  }

  private askFiles(): void {
    const s = this.s
    for (const key of ['vision', 'roadmap'] as const) {
      if (s.targets[key]) continue
      if (!docExists(this.deps.projectDir, key)) {
        s.targets[key] = docFile[key]
        continue
      }
      s.pending = choice(
        `existing-${key}`,
        `${docFile[key]} already exists.`,
        [
          { value: 'update', label: `Update: replace ${docFile[key]}` },
          { value: 'draft', label: `New draft: write ${draftFile[key]}` },
        ],
        'draft',
      )
      return
    }
    s.pending = writeChoice(s.targets)
  }

  private async write(): Promise<void> {
    const s = this.s
    const files = await writeDocuments(this.deps.projectDir, s.drafts!, {
      vision: s.targets.vision ?? docFile.vision,
      roadmap: s.targets.roadmap ?? docFile.roadmap,
    })
    s.written = files
    this.deps.emit({ type: 'brainstorm.written', files })
    this.setPhase('done')
    // Only a roadmap that is now ROADMAP.md can seed the queue; a draft waits for the user's own merge.
    if (files.includes(docFile.roadmap)) {
      s.pending = choice(
        'queue',
        'Create the work queue from this roadmap? One spec per track, tasks from its deliverables and done_when.',
        [
          { value: 'later', label: 'Not now' },
          { value: 'create', label: 'Create the work queue' },
        ],
        'later',
      )
    }
  }

  private async seedQueue(): Promise<void> {
    try {
      const seeded = await seedQueueFromRoadmap({
        projectDir: this.deps.projectDir,
        roadmap: this.s.drafts!.roadmap,
        logger: this.deps.logger,
      })
      const tasks = seeded.reduce((n, t) => n + t.tasks.length, 0)
      this.deps.emit({
        type: 'brainstorm.say',
        text: `Queued ${tasks} tasks in ${seeded.length} specs (${seeded.map((t) => t.spec).join(', ')}); the current spec is ${seeded[0]!.spec}.`,
      })
    } catch (err) {
      this.deps.emit({ type: 'brainstorm.error', message: (err as Error).message })
    }
  }

  // ---- persistence ----

  private announce(text?: string): void {
    const p = this.s.pending
    if (!p) return
    if (p.kind === 'open') {
      this.deps.emit({ type: 'brainstorm.say', text: text ?? p.text })
      return
    }
    this.deps.emit({
      type: 'brainstorm.say',
      text: text ?? choiceText(p),
      choice: {
        id: p.id,
        options: p.options.map((o, i) => ({ n: i + 1, value: o.value, label: o.label })),
        default: p.default,
      },
    })
  }

  private async persist(ideas: StoredIdea[] = []): Promise<void> {
    if (ideas.length) this.deps.repo.saveWithIdeas(this.id, this.s, ideas)
    else this.deps.repo.save(this.id, this.s)
    await updateLedger(this.deps.projectDir, this.s, this.deps.repo.ideas(this.id))
  }
}
