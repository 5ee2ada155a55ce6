// Change-marker grammar (PLAN_LANGUAGE.md "Change markers"). This reads the text of one comment the parser
// already located in the AST; it never looks for structure in the file itself.
import type { Marker, MarkerKind } from './types'

const numberWords: Record<string, number> = {
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
}

// Words that can follow a count without naming the items ("2 more", "2 new flavors").
const fillerWords = new Set([
  'more',
  'new',
  'additional',
  'extra',
  'existing',
  'original',
  'other',
  'preserved',
  'x',
])
const phraseStop = new Set([
  'for',
  'to',
  'with',
  'in',
  'on',
  'that',
  'which',
  'and',
  'from',
  'at',
  'of',
  'like',
])

export interface MarkerParse {
  marker: Marker | null
  /** Set when the comment looks like a marker but does not follow the grammar: says how to fix it. */
  problem: string | null
}

/** Strips the comment delimiters of a `/* … *\/` or `// …` comment. */
export function commentBody(raw: string): string {
  let s = raw
  if (s.startsWith('/*')) s = s.slice(2, s.endsWith('*/') ? -2 : undefined)
  else if (s.startsWith('//')) s = s.slice(2)
  return s
    .split('\n')
    .map((l) => l.replace(/^\s*\*\s?/, ''))
    .join(' ')
    .trim()
}

/** Finds the count and the counted noun in a description: "2 nighttime drink flavors (…)" → 2, "flavors". */
export function extractCount(description: string): { count: number | null; noun: string | null } {
  const words = description.split(/\s+/)
  for (let i = 0; i < words.length; i++) {
    const w = (words[i] ?? '').toLowerCase().replace(/[^a-z0-9]/g, '')
    const raw = words[i] ?? ''
    let count: number | null = null
    if (/^\d{1,3}$/.test(raw.replace(/[,;:.]$/, ''))) count = Number(raw.replace(/[,;:.]$/, ''))
    else if (w in numberWords && /^[a-z]+[,;:.]?$/i.test(raw)) count = numberWords[w] ?? null
    if (count === null) continue
    if (/[,;:.]$/.test(raw)) return { count, noun: null }
    const phrase: string[] = []
    for (let j = i + 1; j < words.length && phrase.length < 5; j++) {
      const token = words[j] ?? ''
      const clean = token.toLowerCase().replace(/[^a-z-]/g, '')
      if (!clean || token.startsWith('(') || phraseStop.has(clean) || /^[—–-]+$/.test(token)) break
      phrase.push(clean)
      if (/[,;:.)(—–]$/.test(token)) break
    }
    const meaningful = phrase.filter((p) => !fillerWords.has(p))
    return { count, noun: meaningful.length > 0 ? (meaningful[meaningful.length - 1] ?? null) : null }
  }
  return { count: null, noun: null }
}

const taskMarker = /^TASK-(\d+)\s*\[\s*([A-Za-z]+)\s*\]\s*(:?)\s*([\s\S]*)$/i
const noChanges = /^NO\s+CHANGES\s+for\s+task-(\d+)\b([\s\S]*)$/i
const looksLikeTask = /^TASK\b|^TASK[-_\s]*\d|\[\s*(ADD|MODIFY|FIX|REMOVE)\s*\]/i
const looksLikeNoChanges = /^NO[\s_-]*CHANGES?\b/i
const preserved = /\bPRESERVED\b/i

const validKinds = ['ADD', 'MODIFY', 'FIX', 'REMOVE'] as const

/** Parses one comment. Ordinary comments give `{ marker: null, problem: null }`. */
export function parseMarker(rawComment: string): MarkerParse {
  const body = commentBody(rawComment)
  const task = taskMarker.exec(body)
  if (task) {
    const kind = (task[2] ?? '').toUpperCase()
    const description = (task[4] ?? '').trim()
    if (!(validKinds as readonly string[]).includes(kind)) {
      return malformed(`unknown marker kind [${task[2]}]: use one of [ADD], [MODIFY], [FIX], [REMOVE]`)
    }
    if (!task[3])
      return malformed(`missing ":" after [${kind}]: write TASK-${task[1]} [${kind}]: <what to do>`)
    if (!description)
      return malformed(`TASK-${task[1]} [${kind}] has no description: say what to ${kind.toLowerCase()}`)
    const { count, noun } = kind === 'ADD' ? extractCount(description) : { count: null, noun: null }
    return {
      marker: { kind: kind as MarkerKind, task: Number(task[1]), description, count, noun },
      problem: null,
    }
  }
  const none = noChanges.exec(body)
  if (none) {
    const rest = (none[2] ?? '').replace(/^[\s—–:-]+/, '').trim()
    return {
      marker: { kind: 'NO_CHANGES', task: Number(none[1]), description: rest, count: null, noun: null },
      problem: null,
    }
  }
  if (looksLikeNoChanges.test(body)) {
    return malformed('write NO CHANGES for task-<n> (with the task number, e.g. "NO CHANGES for task-3")')
  }
  if (looksLikeTask.test(body)) {
    return malformed(
      'markers read TASK-<n> [ADD|MODIFY|FIX|REMOVE]: <description>, e.g. "TASK-3 [ADD]: 2 flavors"',
    )
  }
  if (preserved.test(body)) {
    const { count, noun } = extractCount(body)
    return { marker: { kind: 'PRESERVED', task: null, description: body, count, noun }, problem: null }
  }
  return { marker: null, problem: null }

  function malformed(problem: string): MarkerParse {
    return { marker: null, problem: `Malformed marker "${body}": ${problem}` }
  }
}

/** Renders a marker back to its canonical comment text (for tools that write plans). */
export function formatMarker(marker: Marker): string {
  if (marker.kind === 'PRESERVED') return `{/* ${marker.description} */}`
  if (marker.kind === 'NO_CHANGES') {
    return `{/* NO CHANGES for task-${marker.task}${marker.description ? ` — ${marker.description}` : ''} */}`
  }
  return `{/* TASK-${marker.task} [${marker.kind}]: ${marker.description} */}`
}
