import type {
  BrainstormEvent,
  BrainstormPending,
  BrainstormPhase,
  BrainstormState,
  TechniqueMode,
} from '../../shared/brainstorm'
import { quickQuestions } from './prompts'
import { approachOptions, techniqueCategories, techniquePlan } from './techniques'
import { docFile, draftFile, type DocKey } from './writeOutputs'

/**
 * The session's decisions, apart from their effects (issue #25): what an answer does to the state, as a pure
 * function of the state and the answer. The session applies the result: it takes the next state, emits the
 * events, and runs the follow-ups that read or write outside the state (files, the store, the queue).
 */

/** Every closed question the session asks, by id: one list, so an id the switch misses does not compile. */
export const choiceIds = [
  'confirm-pitch',
  'technique',
  'category',
  'energy',
  'drafts',
  'finding',
  'existing-vision',
  'existing-roadmap',
  'write',
  'queue',
  'failed',
] as const
export type ChoiceId = (typeof choiceIds)[number]

export const isChoiceId = (id: string): id is ChoiceId => (choiceIds as readonly string[]).includes(id)

export type Choice = Extract<BrainstormPending, { kind: 'choice' }>

export const choice = (id: ChoiceId, text: string, options: Choice['options'], def: string): Choice => ({
  kind: 'choice',
  id,
  text,
  options,
  default: def,
})

/** What the session does with a transition besides taking its state. */
export type Effect =
  | { type: 'emit'; event: BrainstormEvent }
  /** Ask about the next existing document (update or draft), or whether to write. Reads the project folder. */
  | { type: 'ask-files' }
  /** Ask IDEATE's last question again. Reads the stored messages. */
  | { type: 'ask-ideate-again' }
  | { type: 'write' }
  | { type: 'seed-queue' }
  | { type: 'use-hand-draft' }

export interface Transition {
  /** 'paused': the user chose to stop here for now (saved, no model work runs). */
  outcome: 'taken' | 'paused'
  state: BrainstormState
  /** In order, after the state is taken. */
  effects: Effect[]
}

/** A transition being built: a copy of the state and the effects so far. */
interface Draft {
  s: BrainstormState
  effects: Effect[]
}

const draft = (state: BrainstormState): Draft => ({ s: structuredClone(state), effects: [] })
const done = (d: Draft, outcome: Transition['outcome'] = 'taken'): Transition => ({
  outcome,
  state: d.s,
  effects: d.effects,
})

/** Moves to a phase; the move is announced (nothing when it is already there). */
export function phaseEvent(s: BrainstormState, to: BrainstormPhase): BrainstormEvent | null {
  return s.phase === to ? null : { type: 'brainstorm.phase', from: s.phase, to }
}

function setPhase(d: Draft, to: BrainstormPhase): void {
  const event = phaseEvent(d.s, to)
  if (!event) return
  d.effects.push({ type: 'emit', event })
  d.s.phase = to
}

/** The next lens of the plan, with the directive that opens it (the state is changed in place). */
export function rotateLens(s: BrainstormState): void {
  const t = s.technique
  if (!t.plan.length) return
  t.index = (t.index + 1) % t.plan.length
  t.exchangesOnLens = 0
  const lens = t.plan[t.index]!
  if (!t.used.includes(lens)) t.used.push(lens)
  s.directive = [s.directive, `Switch the lens to "${lens}" and open it with a fresh question.`]
    .filter(Boolean)
    .join('\n')
}

function startIdeate(d: Draft, plan: string[]): void {
  const t = d.s.technique
  t.plan = plan
  t.index = 0
  t.exchangesOnLens = 0
  t.used = plan.length ? [plan[0]!] : []
  setPhase(d, 'ideate')
  d.s.directive = plan[0] ? `Open IDEATE under the lens "${plan[0]}".` : null
  d.s.lastAnswer = ''
  d.s.due = 'facilitate'
}

function facilitateIn(d: Draft, phase: BrainstormPhase): void {
  setPhase(d, phase)
  d.s.lastAnswer = ''
  d.s.due = 'facilitate'
}

function toOutput(d: Draft): void {
  setPhase(d, 'output')
  d.s.due = 'output'
}

export function failedChoice(failure: BrainstormState['failure']): Choice {
  const f = failure
  return choice(
    'failed',
    `${f?.step === 'review' ? 'The review' : 'The documents'} could not be completed:\n${(f?.problems ?? []).map((p) => `- ${p}`).join('\n')}`,
    [
      { value: 'retry', label: 'Try again' },
      ...(f?.step === 'review' ? [] : [{ value: 'edited', label: 'Use my edited draft' }]),
      { value: 'stop', label: 'Stop here' },
    ],
    'stop',
  )
}

export function writeChoice(targets: BrainstormState['targets']): Choice {
  return choice(
    'write',
    `Ready to write ${targets.vision} and ${targets.roadmap}.`,
    [
      { value: 'write', label: 'Write files' },
      { value: 'later', label: 'Not yet' },
    ],
    'write',
  )
}

/** The next undecided finding as a question; else revise (some were applied) or go on to the files. */
export function nextFinding(s: BrainstormState): Choice | 'revise' | 'files' {
  const index = s.findings.findIndex((f) => f.decision === null)
  if (index >= 0) {
    const f = s.findings[index]!
    return choice(
      'finding',
      `Finding ${index + 1} of ${s.findings.length} [${f.severity}]: ${f.what}\nWhy: ${f.why}\nFix: ${f.fix}`,
      [
        { value: 'apply', label: 'Apply' },
        { value: 'dismiss', label: 'Dismiss' },
      ],
      'dismiss',
    )
  }
  return s.findings.some((f) => f.decision === 'apply') ? 'revise' : 'files'
}

const ORGANIZE_REQUEST = /^\s*\/?(organi[sz]e|let'?s organi[sz]e)\b/i

/** An open question's answer (already trimmed, not empty). */
export function answerOpen(state: BrainstormState, id: string, answer: string): Transition {
  const d = draft(state)
  const s = d.s
  s.pending = null
  if (id.startsWith('quick-')) {
    s.quickAnswers.push(answer)
    const next = quickQuestions[s.quickAnswers.length]
    if (next) s.pending = { kind: 'open', id: `quick-${s.quickAnswers.length}`, text: next }
    else toOutput(d)
  } else if (id === 'change') {
    s.changeRequest = answer
    s.due = 'output'
  } else if (s.phase === 'ideate' && ORGANIZE_REQUEST.test(answer)) {
    facilitateIn(d, 'organize')
  } else {
    s.lastAnswer = answer
    s.due = 'facilitate'
  }
  return done(d)
}

/**
 * A closed question's answer: `value` is one of its options' values. `random` draws the random technique plan.
 * An id this build does not ask (a session saved by another version) only drops the question.
 */
export function answerChoice(
  state: BrainstormState,
  id: string,
  value: string,
  random?: () => number,
): Transition {
  if (isChoiceId(id)) return choiceTransition(state, id, value, random)
  return { outcome: 'taken', state: { ...state, pending: null }, effects: [] }
}

function choiceTransition(
  state: BrainstormState,
  id: ChoiceId,
  value: string,
  random?: () => number,
): Transition {
  const d = draft(state)
  const s = d.s
  s.pending = null
  switch (id) {
    case 'confirm-pitch':
      if (value === 'yes') {
        setPhase(d, 'technique')
        s.pending = choice('technique', 'How shall we generate ideas?', approachOptions, 'ai-recommended')
      } else {
        s.pending = { kind: 'open', id: 'setup', text: 'What should change in the pitch?' }
      }
      return done(d)
    case 'technique':
      s.technique.mode = value as TechniqueMode
      if (value === 'user-selected') {
        s.pending = choice(
          'category',
          'Pick a category of techniques:',
          techniqueCategories.map((c) => ({ value: c, label: c })),
          'creative',
        )
      } else startIdeate(d, techniquePlan(value as TechniqueMode, undefined, random))
      return done(d)
    case 'category':
      startIdeate(d, techniquePlan('user-selected', value))
      return done(d)
    case 'energy':
      if (value === 'keep') d.effects.push({ type: 'ask-ideate-again' })
      else if (value === 'switch') {
        rotateLens(s)
        s.lastAnswer = ''
        s.due = 'facilitate'
      } else facilitateIn(d, 'organize')
      return done(d)
    case 'drafts':
      if (value === 'review') {
        setPhase(d, 'review')
        s.due = 'review'
      } else s.pending = { kind: 'open', id: 'change', text: 'What should change in the documents?' }
      return done(d)
    case 'finding': {
      const next = s.findings.find((f) => f.decision === null)
      if (next) next.decision = value === 'apply' ? 'apply' : 'dismiss'
      afterFindings(d)
      return done(d)
    }
    case 'existing-vision':
    case 'existing-roadmap': {
      const key: DocKey = id === 'existing-vision' ? 'vision' : 'roadmap'
      s.targets[key] = value === 'update' ? docFile[key] : draftFile[key]
      d.effects.push({ type: 'ask-files' })
      return done(d)
    }
    case 'write':
      if (value === 'later') {
        s.pending = writeChoice(s.targets)
        return done(d, 'paused')
      }
      d.effects.push({ type: 'write' })
      return done(d)
    case 'queue':
      if (value === 'create') d.effects.push({ type: 'seed-queue' })
      return done(d)
    case 'failed':
      if (value === 'retry') {
        s.due = s.failure!.step
        s.failure = null
        return done(d)
      }
      if (value === 'edited') {
        d.effects.push({ type: 'use-hand-draft' })
        return done(d)
      }
      s.pending = failedChoice(s.failure)
      return done(d, 'paused')
    default: {
      const _exhaustive: never = id
      return _exhaustive
    }
  }
}

/** The review's decisions so far: the next finding, a revision, or the files. */
function afterFindings(d: Draft): void {
  const next = nextFinding(d.s)
  if (next === 'revise') d.s.due = 'revise'
  else if (next === 'files') d.effects.push({ type: 'ask-files' })
  else d.s.pending = next
}
