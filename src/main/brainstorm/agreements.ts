import {
  moscow,
  type BrainstormStatements,
  type BrainstormTheme,
  type Facilitation,
  type Moscow,
} from '../../shared/brainstorm'
import { ideaId } from './ledger'

const MOSCOW_WORDS: [RegExp, Moscow][] = [
  [/^must/i, 'must'],
  [/^should/i, 'should'],
  [/^could/i, 'could'],
  [/^won'?t|^will not/i, 'wont'],
]

function priorityOf(value: string | null | undefined): Moscow | null {
  const v = (value ?? '').trim()
  if ((moscow as readonly string[]).includes(v)) return v as Moscow
  return MOSCOW_WORDS.find(([re]) => re.test(v))?.[1] ?? null
}

/**
 * The model's themes as the harness keeps them: trimmed names, MoSCoW words mapped ("Must-have" → must), and only
 * idea ids that exist in the ledger (I7, i007 and I007 are the same idea; an invented one is dropped).
 */
export function normalizeThemes(
  themes: NonNullable<Facilitation['themes']>,
  ideaCount: number,
): BrainstormTheme[] {
  return themes
    .map((t) => ({
      name: t.name.trim(),
      ideas: [
        ...new Set(
          t.ideas
            .map((id) => /^i?0*(\d+)$/i.exec(id.trim())?.[1])
            .filter((n): n is string => !!n && Number(n) >= 1 && Number(n) <= ideaCount)
            .map((n) => ideaId(Number(n))),
        ),
      ],
      priority: priorityOf(t.priority),
      risk: t.risk?.trim() || null,
    }))
    .filter((t) => t.name)
}

const clean = (items: string[]) => items.map((i) => i.trim()).filter(Boolean)

export function normalizeStatements(s: BrainstormStatements): BrainstormStatements {
  return {
    vision: s.vision.trim(),
    successTruths: clean(s.successTruths),
    nonGoals: clean(s.nonGoals),
    constraints: clean(s.constraints),
    risks: clean(s.risks),
    openQuestions: clean(s.openQuestions),
  }
}

const label: Record<Moscow, string> = {
  must: 'Must-have',
  should: 'Should-have',
  could: 'Could-have',
  wont: "Won't-have",
}

/** The agreements as prompt text: what OUTPUT turns into the documents (ids and words, no raw ledger). */
export function agreementsSummary(
  themes: BrainstormTheme[],
  statements: BrainstormStatements | null,
): string {
  const parts: string[] = []
  if (themes.length) {
    parts.push(
      'themes:',
      ...themes.map(
        (t) =>
          `- ${t.name} [${t.priority ? label[t.priority] : 'not prioritized'}] ${t.ideas.join(', ')}${t.risk ? ` · risk: ${t.risk}` : ''}`,
      ),
    )
  }
  if (statements) {
    const list = (name: string, items: string[]) =>
      items.length ? [`${name}:`, ...items.map((i) => `- ${i}`)] : []
    parts.push(
      ...(statements.vision ? [`vision: ${statements.vision}`] : []),
      ...list('success truths', statements.successTruths),
      ...list('non-goals', statements.nonGoals),
      ...list('constraints', statements.constraints),
      ...list('key risks', statements.risks),
      ...list('open questions', statements.openQuestions),
    )
  }
  return parts.join('\n')
}

export const moscowLabel = label
