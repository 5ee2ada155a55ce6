import { describe, expect, it } from 'vitest'
import type { BrainstormPhase, BrainstormState } from '../../shared/brainstorm'
import { newSessionState } from './newSession'
import { quickQuestions } from './prompts'
import {
  answerChoice,
  answerOpen,
  choiceIds,
  failedChoice,
  nextFinding,
  writeChoice,
  type ChoiceId,
  type Effect,
  type Transition,
} from './transitions'

const finding = (decision: 'apply' | 'dismiss' | null) => ({
  severity: 'HIGH' as const,
  what: 'No metric',
  why: 'Cannot tell done',
  fix: 'Add one',
  decision,
})

function state(patch: Partial<BrainstormState> = {}): BrainstormState {
  return { ...newSessionState('full', null), due: null, ...patch }
}

const phaseMove = (from: BrainstormPhase, to: BrainstormPhase): Effect => ({
  type: 'emit',
  event: { type: 'brainstorm.phase', from, to },
})

/** The parts of a transition a case checks; the rest of the state is the input's, unchanged. */
interface Case {
  name: string
  id: ChoiceId
  value: string
  from?: Partial<BrainstormState>
  outcome?: Transition['outcome']
  expect: Partial<BrainstormState>
  effects?: Effect[]
}

const plan = ['What-If Scenarios', 'SCAMPER', 'Persona Journey', 'First Principles']
const failure = { step: 'output' as const, problems: ['too long'] }

const cases: Case[] = [
  {
    name: 'confirm-pitch yes: TECHNIQUE, asks the approach',
    id: 'confirm-pitch',
    value: 'yes',
    expect: {
      phase: 'technique',
      pending: expect.objectContaining({ id: 'technique', default: 'ai-recommended' }),
    },
    effects: [phaseMove('setup', 'technique')],
  },
  {
    name: 'confirm-pitch no: asks what to change',
    id: 'confirm-pitch',
    value: 'no',
    expect: {
      phase: 'setup',
      pending: { kind: 'open', id: 'setup', text: 'What should change in the pitch?' },
    },
  },
  {
    name: 'technique user-selected: asks the category',
    id: 'technique',
    value: 'user-selected',
    from: { phase: 'technique' },
    expect: {
      technique: expect.objectContaining({ mode: 'user-selected', plan: [] }),
      pending: expect.objectContaining({ id: 'category', default: 'creative' }),
    },
  },
  {
    name: 'technique ai-recommended: IDEATE under the first lens',
    id: 'technique',
    value: 'ai-recommended',
    from: { phase: 'technique' },
    expect: {
      phase: 'ideate',
      pending: null,
      due: 'facilitate',
      directive: 'Open IDEATE under the lens "What-If Scenarios".',
      technique: { mode: 'ai-recommended', plan, index: 0, exchangesOnLens: 0, used: [plan[0]!] },
    },
    effects: [phaseMove('technique', 'ideate')],
  },
  {
    name: 'category: IDEATE with four techniques of it',
    id: 'category',
    value: 'creative',
    from: { phase: 'technique' },
    expect: {
      phase: 'ideate',
      due: 'facilitate',
      directive: expect.stringMatching(/^Open IDEATE under the lens "/),
      technique: expect.objectContaining({ mode: null, index: 0, plan: expect.arrayContaining([]) }),
    },
    effects: [phaseMove('technique', 'ideate')],
  },
  {
    name: 'energy keep: asks the last question again (a follow-up reads it)',
    id: 'energy',
    value: 'keep',
    from: { phase: 'ideate' },
    expect: { phase: 'ideate', pending: null, due: null },
    effects: [{ type: 'ask-ideate-again' }],
  },
  {
    name: 'energy switch: the next lens, facilitated',
    id: 'energy',
    value: 'switch',
    from: {
      phase: 'ideate',
      lastAnswer: 'x',
      technique: { mode: 'progressive', plan: ['A', 'B'], index: 0, exchangesOnLens: 3, used: ['A'] },
    },
    expect: {
      due: 'facilitate',
      lastAnswer: '',
      directive: 'Switch the lens to "B" and open it with a fresh question.',
      technique: { mode: 'progressive', plan: ['A', 'B'], index: 1, exchangesOnLens: 0, used: ['A', 'B'] },
    },
  },
  {
    name: 'energy organize: ORGANIZE, facilitated',
    id: 'energy',
    value: 'organize',
    from: { phase: 'ideate', lastAnswer: 'x' },
    expect: { phase: 'organize', due: 'facilitate', lastAnswer: '' },
    effects: [phaseMove('ideate', 'organize')],
  },
  {
    name: 'drafts review: REVIEW is due',
    id: 'drafts',
    value: 'review',
    from: { phase: 'output' },
    expect: { phase: 'review', due: 'review' },
    effects: [phaseMove('output', 'review')],
  },
  {
    name: 'drafts change: asks what to change',
    id: 'drafts',
    value: 'change',
    from: { phase: 'output' },
    expect: { pending: { kind: 'open', id: 'change', text: 'What should change in the documents?' } },
  },
  {
    name: 'finding apply with another left: asks the next one',
    id: 'finding',
    value: 'apply',
    from: { phase: 'review', findings: [finding(null), finding(null)] },
    expect: {
      findings: [finding('apply'), finding(null)],
      pending: expect.objectContaining({
        id: 'finding',
        text: expect.stringMatching(/^Finding 2 of 2 \[HIGH\]/),
      }),
    },
  },
  {
    name: 'finding, the last, one applied: revise',
    id: 'finding',
    value: 'dismiss',
    from: { phase: 'review', findings: [finding('apply'), finding(null)] },
    expect: { findings: [finding('apply'), finding('dismiss')], due: 'revise' },
  },
  {
    name: 'finding, the last, none applied: on to the files',
    id: 'finding',
    value: 'anything',
    from: { phase: 'review', findings: [finding(null)] },
    expect: { findings: [finding('dismiss')], due: null },
    effects: [{ type: 'ask-files' }],
  },
  {
    name: 'existing-vision update: VISION.md, then the next file question',
    id: 'existing-vision',
    value: 'update',
    expect: { targets: { vision: 'VISION.md', roadmap: null } },
    effects: [{ type: 'ask-files' }],
  },
  {
    name: 'existing-roadmap draft: ROADMAP.draft.md',
    id: 'existing-roadmap',
    value: 'draft',
    from: { targets: { vision: 'VISION.md', roadmap: null } },
    expect: { targets: { vision: 'VISION.md', roadmap: 'ROADMAP.draft.md' } },
    effects: [{ type: 'ask-files' }],
  },
  {
    name: 'write write: the files are written',
    id: 'write',
    value: 'write',
    expect: { pending: null },
    effects: [{ type: 'write' }],
  },
  {
    name: 'write later: paused, the same question kept',
    id: 'write',
    value: 'later',
    from: { targets: { vision: 'VISION.md', roadmap: 'ROADMAP.md' } },
    outcome: 'paused',
    expect: { pending: writeChoice({ vision: 'VISION.md', roadmap: 'ROADMAP.md' }) },
  },
  {
    name: 'queue create: the queue is seeded',
    id: 'queue',
    value: 'create',
    from: { phase: 'done' },
    expect: { pending: null },
    effects: [{ type: 'seed-queue' }],
  },
  {
    name: 'queue later: nothing more',
    id: 'queue',
    value: 'later',
    from: { phase: 'done' },
    expect: { pending: null },
  },
  {
    name: 'failed retry: the failed step is due again',
    id: 'failed',
    value: 'retry',
    from: { failure },
    expect: { failure: null, due: 'output' },
  },
  {
    name: 'failed edited: the hand draft is read',
    id: 'failed',
    value: 'edited',
    from: { failure },
    expect: { failure },
    effects: [{ type: 'use-hand-draft' }],
  },
  {
    name: 'failed stop: paused, the same question kept',
    id: 'failed',
    value: 'stop',
    from: { failure },
    outcome: 'paused',
    expect: { failure, pending: failedChoice(failure) },
  },
]

describe('answerChoice: every closed question', () => {
  it.each(cases)('$name', (c) => {
    const before = state({ pending: { kind: 'open', id: 'x', text: 'asked' }, ...c.from })
    const frozen = structuredClone(before)
    const t = answerChoice(before, c.id, c.value, () => 0)
    expect(t.outcome).toBe(c.outcome ?? 'taken')
    expect(t.effects).toEqual(c.effects ?? [])
    expect(t.state).toEqual({ ...before, pending: null, ...c.expect })
    // pure: the input is not touched
    expect(before).toEqual(frozen)
  })

  it('covers every choice id', () => {
    expect(new Set(cases.map((c) => c.id))).toEqual(new Set(choiceIds))
  })

  it('draws the random plan with the given random', () => {
    const draws = [0, 0, 0.25, 0.5, 0.75]
    const t = answerChoice(state({ phase: 'technique' }), 'technique', 'random', () => draws.shift()!)
    expect(t.state.technique.plan).toHaveLength(4)
    expect(new Set(t.state.technique.plan).size).toBe(4)
    expect(t.state.technique.mode).toBe('random')
  })

  it('an id this build does not ask only drops the question', () => {
    const before = state({ pending: { kind: 'open', id: 'x', text: 'asked' } })
    const t = answerChoice(before, 'no-such-id', 'yes')
    expect(t).toEqual({ outcome: 'taken', state: { ...before, pending: null }, effects: [] })
  })
})

describe('answerOpen: the open questions', () => {
  it('a quick answer asks the next question, and the last goes to OUTPUT', () => {
    const t = answerOpen(newSessionState('quick', null), 'quick-0', 'A tool')
    expect(t.state.quickAnswers).toEqual(['A tool'])
    expect(t.state.pending).toEqual({ kind: 'open', id: 'quick-1', text: quickQuestions[1] })
    expect(t.effects).toEqual([])
    const last = answerOpen(
      { ...newSessionState('quick', null), quickAnswers: ['a', 'b', 'c', 'd'] },
      'quick-4',
      'e',
    )
    expect(last.state).toMatchObject({ phase: 'output', due: 'output', pending: null })
    expect(last.effects).toEqual([phaseMove('quick', 'output')])
  })

  it('a change request redrafts the documents', () => {
    const t = answerOpen(state({ phase: 'output' }), 'change', 'shorter')
    expect(t.state).toMatchObject({ changeRequest: 'shorter', due: 'output', pending: null })
  })

  it('"organize" in IDEATE moves to ORGANIZE; elsewhere it is an answer', () => {
    const t = answerOpen(state({ phase: 'ideate' }), 'ideate', "let's organize")
    expect(t.state).toMatchObject({ phase: 'organize', due: 'facilitate', lastAnswer: '' })
    expect(t.effects).toEqual([phaseMove('ideate', 'organize')])
    const setup = answerOpen(state({ phase: 'setup' }), 'setup', 'organize my notes')
    expect(setup.state).toMatchObject({ phase: 'setup', due: 'facilitate', lastAnswer: 'organize my notes' })
    expect(setup.effects).toEqual([])
  })
})

describe('nextFinding', () => {
  it('asks the first undecided, then revise when one was applied, else the files', () => {
    expect(nextFinding(state({ findings: [finding('dismiss'), finding(null)] }))).toMatchObject({
      id: 'finding',
      default: 'dismiss',
    })
    expect(nextFinding(state({ findings: [finding('apply')] }))).toBe('revise')
    expect(nextFinding(state({ findings: [] }))).toBe('files')
  })
})
