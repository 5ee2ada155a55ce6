import type { BrainstormDetail } from '../../../../shared/api/brainstorm'
import type { BrainstormPending } from '../../../../shared/brainstorm'

/** A session as `brainstorm.get` returns it; tests patch the part they are about. */
export const detail = (patch: Partial<BrainstormDetail> = {}): BrainstormDetail => ({
  id: 1,
  mode: 'full',
  phase: 'setup',
  pending: { kind: 'open', id: 'setup', text: 'What are we building?' },
  pitch: null,
  ideaCount: 0,
  domainsCovered: [],
  lens: null,
  nextPivotAt: 10,
  nextInterruptAt: 20,
  recentIdeas: [],
  drafts: null,
  problems: [],
  findings: [],
  written: [],
  technique: { mode: null, plan: [], used: [] },
  themes: [],
  statements: null,
  quickAnswers: [],
  usage: { calls: 1, inputTokens: 100, outputTokens: 20, usd: 0 },
  due: false,
  handDraft: null,
  rendered: null,
  messages: [{ role: 'facilitator', phase: 'setup', text: 'What are we building?' }],
  existing: { vision: false, roadmap: false },
  ...patch,
})

export const choice = (
  id: string,
  options: [string, string][],
  def = options[0]![0],
  text = 'Question?',
): BrainstormPending => ({
  kind: 'choice',
  id,
  text,
  options: options.map(([value, label]) => ({ value, label })),
  default: def,
})

export const got = (session: BrainstormDetail | null, patch: Record<string, unknown> = {}) => ({
  session,
  running: false,
  error: null,
  notice: null,
  ...patch,
})

export const docs = {
  vision: '# VISION\n\n```yaml\nvision_yaml<=300t:\n  problem:\n    why: "x"\n```',
  roadmap: '# ROADMAP\n\n```yaml\nversion: "0.1"\n```',
  visionLines: 7,
  roadmapLines: 5,
}
