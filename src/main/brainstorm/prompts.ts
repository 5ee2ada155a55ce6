import type { BrainstormState, Finding } from '../../shared/brainstorm'
import type { StoredIdea, StoredMessage } from '../store'
import { loadPrompt } from '../workspace'
import { agreementsSummary } from './agreements'
import { formatIdea, ideaId } from './ledger'
import { DELTAS_AFTER } from './scheduler'

/** One prompt file of resources/prompts/brainstorm/. */
export function brainstormPrompt(name: string): string {
  return loadPrompt('brainstorm', name).trim()
}

const MAX_TITLES = 150

function ideaLines(ideas: StoredIdea[], phase: BrainstormState['phase']): string {
  if (!ideas.length) return '(no ideas yet)'
  // IDEATE sees only the latest ideas (never the whole ledger); ORGANIZE onwards needs every id and title.
  if (phase === 'ideate' || phase === 'setup' || phase === 'technique') {
    return ideas.slice(-5).map(formatIdea).join('\n')
  }
  const shown = ideas.slice(0, MAX_TITLES).map((i) => `${ideaId(i.number)} [${i.domain}] ${i.title}`)
  if (ideas.length > MAX_TITLES) shown.push(`… and ${ideas.length - MAX_TITLES} more`)
  return shown.join('\n')
}

function exchange(messages: StoredMessage[]): string {
  if (!messages.length) return '(the session starts now)'
  return messages.map((m) => `${m.role === 'user' ? 'USER' : 'YOU'}: ${m.text}`).join('\n\n')
}

export function stateSummary(state: BrainstormState): string {
  const lens = state.technique.plan[state.technique.index]
  const domains = Object.entries(state.domains)
    .filter(([, n]) => n > 0)
    .map(([t, n]) => `${t} ${n}`)
  return [
    `phase: ${state.phase}`,
    `pitch: ${state.pitch ?? '(not agreed yet)'}`,
    `idea_count: ${state.ideaCount}`,
    `current_lens: ${lens ?? '(none)'}`,
    `technique plan: ${state.technique.plan.join(' → ') || '(not chosen)'}`,
    `domains covered: ${domains.join(', ') || '(none)'}`,
    `focus domain: ${state.focusDomain ?? '(free)'}`,
    `next pivot at: ${state.nextPivotAt} ideas`,
    state.ideaCount >= DELTAS_AFTER ? 'chat hygiene: deltas only, never list ideas back' : '',
    state.quickAnswers.length ? `quick-mode answers:\n${quickSummary(state.quickAnswers)}` : '',
    agreementsSummary(state.themes, state.statements),
  ]
    .filter(Boolean)
    .join('\n')
}

export const quickQuestions = [
  'Describe what you are building in two or three sentences.',
  'Name three to five must-haves: without them the project has no value.',
  'What are the non-goals: what will it explicitly NOT do?',
  'Any constraints: time, money, technology, legal, platform?',
  'What does success look like in 90 days? Three to seven measurable outcomes.',
]

function quickSummary(answers: string[]): string {
  const labels = ['description', 'must-haves', 'non-goals', 'constraints', 'success outcomes']
  return answers.map((a, i) => `- ${labels[i] ?? `answer ${i + 1}`}: ${a}`).join('\n')
}

/** The facilitation turn of phases 1–5: the phase's instructions, the state, the recent exchange, the directive. */
export function facilitationPrompt(input: {
  state: BrainstormState
  ideas: StoredIdea[]
  recent: StoredMessage[]
}): { system: string; prompt: string } {
  const { state } = input
  const system = `${brainstormPrompt('facilitator')}\n\n${brainstormPrompt(state.phase)}`
  const prompt = [
    '## Session state (kept by the harness)',
    stateSummary(state),
    state.projectContext ? `## What the project already says\n${state.projectContext}` : '',
    `## Ideas${state.phase === 'ideate' ? ' (latest only)' : ''}\n${ideaLines(input.ideas, state.phase)}`,
    `## Recent exchange\n${exchange(input.recent)}`,
    state.directive ? `## Directive for this turn\n${state.directive}` : '',
    state.lastAnswer
      ? `## The user's last answer (capture only from this)\n${state.lastAnswer}`
      : '## The user has not answered yet in this step: capture nothing, open the step.',
  ]
    .filter(Boolean)
    .join('\n\n')
  return { system, prompt }
}

/** The OUTPUT call: everything the session established, never the raw ledger beyond ids and titles. */
export function outputPrompt(input: {
  state: BrainstormState
  ideas: StoredIdea[]
  recent: StoredMessage[]
  changeRequest?: string | null
  apply?: Finding[]
}): { system: string; prompt: string } {
  const { state } = input
  const parts = [
    '## Session state',
    stateSummary(state),
    state.projectContext ? `## What the project already says\n${state.projectContext}` : '',
    input.ideas.length ? `## Ideas (ids and titles)\n${ideaLines(input.ideas, 'organize')}` : '',
    `## Recent exchange (organize and crystallize)\n${exchange(input.recent)}`,
  ]
  if (state.drafts && (input.changeRequest || input.apply?.length)) {
    parts.push(
      `## Current VISION.md\n${state.drafts.vision}`,
      `## Current ROADMAP.md\n${state.drafts.roadmap}`,
    )
    if (input.changeRequest) parts.push(`## Revise both documents for this request\n${input.changeRequest}`)
    if (input.apply?.length)
      parts.push(
        `## Revise both documents to fix these review findings\n${input.apply
          .map((f, i) => `${i + 1}. [${f.severity}] ${f.what} — fix: ${f.fix}`)
          .join('\n')}`,
      )
  }
  return { system: brainstormPrompt('output'), prompt: parts.filter(Boolean).join('\n\n') }
}

export function reviewPrompt(drafts: { vision: string; roadmap: string }): {
  system: string
  prompt: string
} {
  return {
    system: brainstormPrompt('review'),
    prompt: `## VISION.md\n${drafts.vision}\n\n## ROADMAP.md\n${drafts.roadmap}`,
  }
}
