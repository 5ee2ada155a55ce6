import { brainstormDomains, type DomainTag, type Facilitation } from '../../shared/brainstorm'

export interface Capture {
  quote: string
  title: string
  description: string
  novelty: string | null
  domain: DomainTag
}

// Quotes are compared loosely (case, spacing, typographic quotes, trailing punctuation) but must be the user's words.
function loose(text: string): string {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\s+/g, ' ')
    .trim()
}

const MIN_QUOTE_CHARS = 3

export function quoteInAnswer(quote: string, answer: string): boolean {
  const q = loose(quote).replace(/^["'«]+|["'».,;:!?]+$/g, '')
  return q.length >= MIN_QUOTE_CHARS && loose(answer).includes(q)
}

/** "UX", "[ux]", "User experience / workflows" … → a tag; anything unknown is filed under Core. */
export function domainTag(raw: string): DomainTag {
  const value = raw.replace(/[[\]]/g, '').trim().toLowerCase()
  const byTag = brainstormDomains.find((d) => d.tag.toLowerCase() === value)
  if (byTag) return byTag.tag
  const byName = brainstormDomains.find(
    (d) => d.name.toLowerCase() === value || (value.length > 3 && d.name.toLowerCase().startsWith(value)),
  )
  return byName?.tag ?? 'Core'
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/**
 * The captures the harness keeps: only those whose quote is in the user's last answer (the model facilitates, it
 * does not invent the user's ideas), each quote once.
 */
export function keptCaptures(captured: Facilitation['captured'], lastAnswer: string): Capture[] {
  if (!lastAnswer.trim()) return []
  const seen = new Set<string>()
  const kept: Capture[] = []
  for (const c of captured) {
    const title = oneLine(c.title)
    if (!title || !quoteInAnswer(c.quote, lastAnswer)) continue
    const key = loose(c.quote)
    if (seen.has(key)) continue
    seen.add(key)
    kept.push({
      quote: oneLine(c.quote),
      title,
      description: oneLine(c.description ?? '') || oneLine(c.quote),
      novelty: c.novelty ? oneLine(c.novelty) : null,
      domain: domainTag(c.domain),
    })
  }
  return kept
}
