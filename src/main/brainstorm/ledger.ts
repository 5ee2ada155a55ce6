import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { BrainstormState } from '../../shared/brainstorm'
import type { StoredIdea } from '../store'
import { writeFileAtomic, isMissing } from '../workspace'

export const ledgerPath = (projectDir: string) => join(projectDir, '.ralph', 'brainstorm', 'ledger.md')

const IDEAS_HEADING = '## Ideas'

export const ideaId = (n: number) => `I${String(n).padStart(3, '0')}`

/** Seed 004's ledger line: `I001 [Core] Title — description`, then the novelty indented under it. */
export function formatIdea(idea: StoredIdea): string {
  const line = `${ideaId(idea.number)} [${idea.domain}] ${idea.title} — ${idea.description}`
  return idea.novelty ? `${line}\n     Novelty: ${idea.novelty}` : line
}

function stateSection(state: BrainstormState, now: Date): string {
  const domains = Object.entries(state.domains)
    .filter(([, n]) => n > 0)
    .map(([tag, n]) => `${tag} ${n}`)
  const lens = state.technique.plan[state.technique.index] ?? null
  return [
    '## Session state',
    '',
    `- mode: ${state.mode}`,
    `- phase: ${state.phase}`,
    `- one_sentence_pitch: ${state.pitch ?? '(not yet)'}`,
    `- idea_count: ${state.ideaCount}`,
    `- current_lens: ${lens ?? '(none)'}`,
    `- techniques_used: ${state.technique.used.join(', ') || '(none)'}`,
    `- domains_covered: ${domains.join(', ') || '(none)'}`,
    `- next_pivot_at: ${state.nextPivotAt} ideas`,
    `- interrupts_done: ${state.interruptsDone.join(', ') || '(none)'}`,
    `- updated: ${now.toISOString()}`,
  ].join('\n')
}

const HEADER =
  '# Brainstorm ledger\n\nKept by Ralph Studio: the session state is rewritten as the session goes; the ideas below are append-only.\n'

/**
 * Rewrites the session-state section and appends the ideas the file does not hold yet. Ideas already in the
 * file are kept byte for byte (append-only); the store is the source, so a crash between the two only delays
 * an append. Atomic: a reader sees the old file or the new one.
 */
export async function updateLedger(
  projectDir: string,
  state: BrainstormState,
  ideas: StoredIdea[],
  now = new Date(),
): Promise<void> {
  const file = ledgerPath(projectDir)
  let existingIdeas = ''
  try {
    const text = await readFile(file, 'utf8')
    const at = text.indexOf(`\n${IDEAS_HEADING}\n`)
    if (at >= 0) existingIdeas = text.slice(at + IDEAS_HEADING.length + 2).replace(/^\n+/, '')
  } catch (err) {
    // a new ledger
    if (!isMissing(err)) throw err
  }
  const numbers = [...existingIdeas.matchAll(/^I(\d{3,})\s/gm)].map((m) => Number(m[1]))
  const last = numbers.length ? Math.max(...numbers) : 0
  const added = ideas.filter((i) => i.number > last).map(formatIdea)
  const body = [existingIdeas.trimEnd(), ...added].filter(Boolean).join('\n')
  await writeFileAtomic(
    file,
    `${HEADER}\n${stateSection(state, now)}\n\n${IDEAS_HEADING}\n\n${body}${body ? '\n' : ''}`,
  )
}
