import type { LoopEvent } from './loopEvents'

const mark = { pass: '✓', warning: '!', failure: '✗' } as const

function argSummary(args: unknown): string {
  if (!args || typeof args !== 'object') return ''
  const a = args as Record<string, unknown>
  const main = a.path ?? a.command ?? a.pattern ?? a.action ?? a.summary
  return typeof main === 'string' ? main.replace(/\s+/g, ' ').slice(0, 80) : ''
}

/** One human-readable line per loop event (`ralph run` without --json, and the app's task log); null for events not worth a line. */
export function formatLoopEvent(e: LoopEvent): string | null {
  switch (e.type) {
    case 'task.started':
      return e.continued
        ? `▶ Task ${e.task} continues with your answer`
        : `▶ Task ${e.task}: ${e.message.split('\n')[0]!.slice(0, 100)}`
    case 'snapshot.created':
      return `  snapshot ${e.tag} (+${e.added} ~${e.modified} -${e.deleted}, ${e.durationMs} ms)`
    case 'task.parsed':
      return (
        `  parsed as ${e.parsed.type}: ${e.parsed.title}${e.fallback ? ` (template fallback: ${e.reason ?? 'parser unavailable'})` : ''}` +
        e.parsed.requirements.map((r) => `\n    - [${r.marker}] ${r.description}`).join('')
      )
    case 'clarification.needed':
      return `? ${e.question}`
    case 'iteration.started':
      return `  iteration ${e.iteration}/${e.maxIterations} [${e.phase}]`
    case 'tool.called':
      return `    ${e.ok ? '•' : '✗'} ${e.name} ${argSummary(e.args)}${e.ok ? '' : ` — ${e.summary}`}`
    case 'phase.changed':
      return `  phase ${e.from} → ${e.to} (${e.reason})`
    case 'gate.result':
      return `  gate ${mark[e.severity]} ${e.gate}${e.severity === 'pass' ? '' : `: ${e.message.split('\n')[0]}`}`
    case 'stall.detected':
      return `  ⚠ stall (${e.kind}): ${e.message} → ${e.action === 'rollback' ? 'rolling back' : `recovery ${e.recovery}`}`
    case 'task.completed':
      return `✔ Task ${e.task} complete in ${e.iterations} iteration(s)${e.costUsd > 0 ? `, ~$${e.costUsd.toFixed(4)}` : ''} — snapshot ${e.postTag}\n  ${e.summary.split('\n')[0]}`
    case 'task.failed':
      return `✘ Task ${e.task} failed (${e.reason}): ${e.message}`
    case 'llm.retry':
      return `    retrying in ${Math.round(e.delayMs / 100) / 10} s (${e.reason})`
    default:
      return null
  }
}
