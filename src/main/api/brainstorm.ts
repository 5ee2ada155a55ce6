import { parse as parseYaml } from 'yaml'
import type { brainstormCalls, BrainstormDetail, QuickForm } from '../../shared/api/brainstorm'
import { quickFormFields } from '../../shared/api/brainstorm'
import type { BrainstormDocuments, BrainstormEvent } from '../../shared/brainstorm'
import { AppError, toErrorPayload } from '../../shared/errors'
import { BrainstormSession, validateDocuments, type BrainstormDeps } from '../brainstorm'
import { resolveChoice } from '../brainstorm/choices'
import { fencedYaml, lineCount } from '../brainstorm/documents'
import { ideaId } from '../brainstorm/ledger'
import { techniqueLibrary } from '../brainstorm/techniques'
import { docExists, readHandDraft, writeHandDraft } from '../brainstorm/writeOutputs'
import type { ModelConfig } from '../llm/createModel'
import { estimateCost, type PriceOverrides } from '../llm/pricing'
import { BrainstormRepo } from '../store/brainstormRepo'
import type { Db } from '../store/database'
import { attempt } from '../workspace/failures'
import type { Logger } from '../workspace/logFile'
import type { EventBus } from './eventBus'
import type { Handlers, ProjectRef } from './types'

export interface BrainstormApiDeps {
  db: Db
  events: EventBus
  modelConfig(): ModelConfig
  prices(): PriceOverrides
  logger: Logger
}

/** One step running for a project: the session it works on and the controller "Stop" aborts. */
interface Job {
  session: BrainstormSession
  controller: AbortController
}

const MESSAGES_SHOWN = 400

/** A draft's YAML for the wizard's cards; null when there is none or it does not parse (the page shows the text). */
function parsedYaml(log: Logger, text: string): unknown {
  const yaml = fencedYaml(text)
  if (yaml === null) return null
  return attempt(
    log,
    "A brainstorm draft's YAML could not be parsed for its cards",
    () => parseYaml(yaml) ?? null,
    null,
  )
}

type BrainstormHandlers = Handlers<typeof brainstormCalls>

/**
 * The wizard's calls over the same BrainstormSession the CLI drives. A step (model work) runs in the background,
 * one per project; its events go out as `brainstorm.event`, and `brainstorm.changed` says when to re-read. The
 * session is read back from SQLite for every call, so a reload (or a CLI run in between) shows the saved truth.
 */
export function createBrainstormHandlers(deps: BrainstormApiDeps): BrainstormHandlers {
  const steps = createSteps(deps)
  return { ...readHandlers(deps, steps), ...stepHandlers(steps) }
}

type Steps = ReturnType<typeof createSteps>

/** The sessions as the API holds them: the step running per project, its last error and notice. */
function createSteps(deps: BrainstormApiDeps) {
  const repo = new BrainstormRepo(deps.db)
  const jobs = new Map<number, Job>()
  const errors = new Map<number, string>()
  const notices = new Map<number, string>()
  const changed = (projectId: number) => deps.events.emit('brainstorm.changed', { projectId })

  function sessionDeps(project: ProjectRef, model: ModelConfig | null, signal: AbortSignal): BrainstormDeps {
    return {
      projectDir: project.path,
      projectId: project.id,
      repo,
      // Reading a session needs no model; a step checks the provider before it starts.
      get model() {
        return model ?? deps.modelConfig()
      },
      signal,
      emit: (event: BrainstormEvent) => {
        // Outside the exchange (the queue it created, a seeding error): kept for the page until the next step.
        if (event.type === 'brainstorm.say' && /^Queued \d+ tasks/.test(event.text))
          notices.set(project.id, event.text)
        deps.events.emit('brainstorm.event', { projectId: project.id, event })
        if (event.type === 'brainstorm.idea' || event.type === 'brainstorm.phase') changed(project.id)
      },
      priceOf: (usage) => (model ? estimateCost(model.model, usage, deps.prices()).usd : 0),
      logger: deps.logger,
    }
  }

  function latest(
    project: ProjectRef,
    model: ModelConfig | null = null,
    signal = new AbortController().signal,
  ) {
    const row = repo.latest(project.path)
    return row ? BrainstormSession.fromRow(sessionDeps(project, model, signal), row) : null
  }

  /** Runs one step in the background; refused while another runs on the project. */
  function runStep(
    project: ProjectRef,
    open: (model: ModelConfig, signal: AbortSignal) => Promise<BrainstormSession>,
    work: (session: BrainstormSession) => Promise<unknown>,
  ): { accepted: true } {
    if (jobs.has(project.id)) {
      throw new AppError('busy', 'The brainstorm is still working on the last step. Wait, or stop it.')
    }
    // A missing provider is the caller's answer, before anything changes.
    const model = deps.modelConfig()
    const controller = new AbortController()
    errors.delete(project.id)
    notices.delete(project.id)
    const placeholder = { controller } as Job
    jobs.set(project.id, placeholder)
    changed(project.id)
    void (async () => {
      try {
        const session = await open(model, controller.signal)
        placeholder.session = session
        await work(session)
      } catch (err) {
        const payload = toErrorPayload(err)
        errors.set(
          project.id,
          payload.kind === 'cancelled'
            ? 'Stopped. The session is saved at its last step; Continue runs it again.'
            : payload.message,
        )
      } finally {
        jobs.delete(project.id)
        changed(project.id)
      }
    })()
    return { accepted: true }
  }

  /** The session a step continues: the latest one with a question or work pending. */
  function pendingSession(project: ProjectRef, model: ModelConfig, signal: AbortSignal) {
    const session = latest(project, model, signal)
    if (!session?.pending) throw notWaiting()
    return session
  }

  return { repo, jobs, errors, notices, sessionDeps, latest, runStep, pendingSession }
}

/** What the wizard reads: the session as it stands, its ideas, the technique library, a draft's check. */
function readHandlers(
  deps: BrainstormApiDeps,
  { repo, jobs, errors, notices, latest }: Steps,
): Pick<
  BrainstormHandlers,
  'brainstorm.get' | 'brainstorm.ideas' | 'brainstorm.techniques' | 'brainstorm.check'
> {
  async function detail(project: ProjectRef, session: BrainstormSession): Promise<BrainstormDetail> {
    const s = session.state
    const view = session.view()
    const drafts = s.drafts
    const rendered = (text: string) => parsedYaml(deps.logger, text)
    return {
      ...view,
      technique: { mode: s.technique.mode, plan: s.technique.plan, used: s.technique.used },
      themes: s.themes,
      statements: s.statements,
      quickAnswers: s.quickAnswers,
      usage: s.usage,
      due: s.due !== null,
      handDraft:
        s.failure && s.failure.step !== 'review' ? await readHandDraft(project.path, deps.logger) : null,
      rendered: drafts ? { vision: rendered(drafts.vision), roadmap: rendered(drafts.roadmap) } : null,
      messages: repo.recentMessages(session.id, MESSAGES_SHOWN),
      existing: { vision: docExists(project.path, 'vision'), roadmap: docExists(project.path, 'roadmap') },
    }
  }

  return {
    'brainstorm.get': async ({ projectId }, ctx) => {
      const project = ctx.resolveProject(projectId)
      const job = jobs.get(projectId)
      // While a step runs its session holds the newest state (saved after each step, shown as it goes).
      const session = job?.session ?? latest(project)
      return {
        session: session ? await detail(project, session) : null,
        running: !!job,
        error: errors.get(projectId) ?? null,
        notice: notices.get(projectId) ?? null,
      }
    },
    'brainstorm.ideas': async ({ projectId }, ctx) => {
      const project = ctx.resolveProject(projectId)
      const row = repo.latest(project.path)
      const ideas = row ? repo.ideas(row.id) : []
      return {
        ideas: ideas.map((i) => ({
          id: ideaId(i.number),
          domain: i.domain,
          title: i.title,
          description: i.description,
          novelty: i.novelty,
        })),
      }
    },
    'brainstorm.techniques': async () => ({
      categories: Object.entries(techniqueLibrary).map(([name, techniques]) => ({ name, techniques })),
    }),
    'brainstorm.check': async ({ vision, roadmap }) => {
      const docs: BrainstormDocuments = { vision, roadmap }
      return {
        problems: validateDocuments(docs),
        visionLines: lineCount(vision),
        roadmapLines: lineCount(roadmap),
      }
    },
  }
}

/** What moves the session: start (or continue), an answer, the hand-fixed draft, and Stop. */
function stepHandlers({
  repo,
  jobs,
  latest,
  sessionDeps,
  runStep,
  pendingSession,
}: Steps): Pick<
  BrainstormHandlers,
  'brainstorm.start' | 'brainstorm.answer' | 'brainstorm.useDraft' | 'brainstorm.stop'
> {
  return {
    'brainstorm.start': async ({ projectId, quick }, ctx) => {
      const project = ctx.resolveProject(projectId)
      const current = repo.latest(project.path)
      const unfinished = current && current.state.phase !== 'done'
      // The form may finish a quick session it started (the host closed between two answers), nothing else.
      if (quick && unfinished && current.state.phase !== 'quick') {
        throw new AppError('busy', 'This project has an unfinished brainstorm. Finish it first.')
      }
      return runStep(
        project,
        async (model, signal) => {
          const d = sessionDeps(project, model, signal)
          const row = repo.latest(project.path)
          // Continue the unfinished one as it stands (no "resuming" chatter: the page shows where it is).
          if (row && row.state.phase !== 'done') return BrainstormSession.fromRow(d, row)
          return BrainstormSession.open(d, { quick: !!quick })
        },
        async (session) => {
          await session.run()
          if (quick) await answerQuickForm(session, quick)
        },
      )
    },
    'brainstorm.answer': async ({ projectId, text, themes, statements }, ctx) => {
      const project = ctx.resolveProject(projectId)
      const pending = latest(project)?.pending
      if (!pending) throw notWaiting()
      // A closed choice is answered by one of its options (the wizard sends its value); say so before any work.
      if (pending.kind === 'choice' && resolveChoice(pending, text) === null) {
        throw new AppError(
          'invalid-input',
          `Answer with one of: ${pending.options.map((o) => o.label.split(':')[0]).join(', ')}.`,
        )
      }
      return runStep(
        project,
        async (model, signal) => pendingSession(project, model, signal),
        async (session) => {
          if (themes || statements) await session.adjust({ themes, statements })
          const outcome = await session.answer(text)
          if (outcome === 'again')
            throw new AppError('invalid-input', `"${text}" does not answer the question.`)
        },
      )
    },
    'brainstorm.useDraft': async ({ projectId, vision, roadmap }, ctx) => {
      const project = ctx.resolveProject(projectId)
      const session = latest(project)
      const p = session?.pending
      if (!(p?.kind === 'choice' && p.id === 'failed' && p.options.some((o) => o.value === 'edited'))) {
        throw new AppError('invalid-input', 'There is no refused draft to replace.')
      }
      await writeHandDraft(project.path, { vision, roadmap })
      return runStep(
        project,
        async (model, signal) => pendingSession(project, model, signal),
        (s) => s.answer('edited'),
      )
    },
    'brainstorm.stop': async ({ projectId }, ctx) => {
      ctx.resolveProject(projectId)
      const job = jobs.get(projectId)
      if (!job) return { stopped: false }
      job.controller.abort()
      return { stopped: true }
    },
  }
}

const notWaiting = () =>
  new AppError('invalid-input', 'The brainstorm is not waiting for an answer. Reload the page.')

/** Quick mode's form: its five answers are the engine's five questions, answered in order. */
async function answerQuickForm(session: BrainstormSession, form: QuickForm): Promise<void> {
  for (const field of quickFormFields) {
    const p = session.pending
    if (p?.kind !== 'open' || !p.id.startsWith('quick-')) return
    if (Number(p.id.slice('quick-'.length)) !== quickFormFields.indexOf(field)) continue
    await session.answer(form[field])
  }
}
