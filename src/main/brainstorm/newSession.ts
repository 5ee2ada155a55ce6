import type { BrainstormState } from '../../shared/brainstorm'
import { quickQuestions } from './prompts'
import { PIVOT_EVERY } from './scheduler'

/** A fresh session: full mode opens with the model's SETUP turn, quick mode with the first form question. */
export function newSessionState(mode: 'full' | 'quick', projectContext: string | null): BrainstormState {
  return {
    mode,
    phase: mode === 'quick' ? 'quick' : 'setup',
    pending: mode === 'quick' ? { kind: 'open', id: 'quick-0', text: quickQuestions[0]! } : null,
    due: mode === 'quick' ? null : 'facilitate',
    lastAnswer: '',
    projectContext,
    pitch: null,
    technique: { mode: null, plan: [], index: 0, exchangesOnLens: 0, used: [] },
    ideaCount: 0,
    domains: {},
    focusDomain: null,
    pivotHistory: [],
    nextPivotAt: PIVOT_EVERY,
    interruptsDone: [],
    impossibleDone: false,
    ideateExchanges: 0,
    sinceEnergyCheck: 0,
    directive: null,
    quickAnswers: [],
    drafts: null,
    failure: null,
    changeRequest: null,
    findings: [],
    targets: { vision: null, roadmap: null },
    written: [],
    themes: [],
    statements: null,
    usage: { calls: 0, inputTokens: 0, outputTokens: 0, usd: 0 },
  }
}
