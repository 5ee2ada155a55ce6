import { formatDuration, plural } from './format'
import type { LoopEvent, TaskReceipt } from './loopEvents'

const mark = { pass: '✓', warning: '!', failure: '✗' } as const

function argSummary(args: unknown): string {
  if (!args || typeof args !== 'object') return ''
  const a = args as Record<string, unknown>
  const main = a.path ?? a.command ?? a.pattern ?? a.action ?? a.summary
  return typeof main === 'string' ? main.replace(/\s+/g, ' ').slice(0, 80) : ''
}

/** The countdown line of a task waiting for a usage limit (the CLI rewrites it every second on a terminal). */
export function formatLimitCountdown(resetAt: string, now: number = Date.now()): string {
  const at = new Date(resetAt)
  return `  ⏸ waiting for the usage limit: resets at ${at.toLocaleTimeString()} — ${formatDuration(at.getTime() - now)} left (Ctrl+C stops the task; its work so far is kept)`
}

/** "$0.50", "$0.105", "$0.0123", "$2.00": cents always, up to four decimals below a dollar (a task's cost cap). */
export function formatUsd(usd: number): string {
  if (usd >= 1) return `$${usd.toFixed(2)}`
  return `$${usd.toFixed(4).replace(/(\.\d\d\d*?)0+$/, '$1')}`
}

/** The share of input tokens that were cache reads, in whole percent; null when nothing was read from a cache. */
export function cachedPercent(u: { inputTokens: number; cacheReadTokens?: number }): number | null {
  if (!u.cacheReadTokens || u.inputTokens <= 0) return null
  return Math.round((u.cacheReadTokens / u.inputTokens) * 100)
}

/** "cached 84% (12,400 tokens read, 1,200 written)": what the prompt cache did; null when it did nothing. */
export function formatCacheUse(u: {
  inputTokens: number
  cacheReadTokens?: number
  cacheWriteTokens?: number
}): string | null {
  const read = u.cacheReadTokens ?? 0
  const written = u.cacheWriteTokens ?? 0
  if (!read && !written) return null
  const detail = [
    `${read.toLocaleString('en-US')} tokens read`,
    ...(written ? [`${written.toLocaleString('en-US')} written`] : []),
  ].join(', ')
  return `cached ${cachedPercent(u) ?? 0}% (${detail})`
}

export function formatReceipt(r: TaskReceipt): string {
  const cache = formatCacheUse(r)
  const parts = [
    `${r.inputTokens.toLocaleString('en-US')} in / ${r.outputTokens.toLocaleString('en-US')} out tokens`,
    ...(cache ? [cache] : []),
    plural(r.calls, 'call'),
    ...(r.costUsd > 0 ? [`~$${r.costUsd.toFixed(4)}`] : []),
    plural(r.iterations, 'iteration'),
    plural(r.checkpoints, 'checkpoint'),
    r.limitWaits
      ? `${plural(r.limitWaits, 'limit wait')} (${formatDuration(r.limitWaitMs)})`
      : '0 limit waits',
  ]
  const byModel = formatModelSpend(r)
  return `  receipt: ${parts.join(', ')}${byModel ? `\n  ${byModel}` : ''}`
}

/**
 * The spend per model ("by model: gpt-5 ~$0.0210 (6 calls), gpt-5-mini ~$0.0009 (3 calls)"), shown when a task used
 * more than one model (a fast model for side jobs) or a provider reported the cost; null otherwise.
 */
export function formatModelSpend(r: Pick<TaskReceipt, 'models'>): string | null {
  const models = r.models ?? []
  if (models.length < 2 && !models.some((m) => m.costSource === 'provider')) return null
  const each = models.map((m) => {
    const cost = m.costUsd > 0 ? `~$${m.costUsd.toFixed(4)}` : 'no price'
    const source = m.costSource === 'provider' ? ', cost reported by the provider' : ''
    return `${m.model} ${cost} (${plural(m.calls, 'call')}${source})`
  })
  return `by model: ${each.join(', ')}`
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
      return `? ${e.question}${(e.options ?? []).map((o, i) => `\n  ${i + 1}. ${o}`).join('')}`
    case 'iteration.started':
      return `  iteration ${e.iteration}/${e.maxIterations} [${e.phase}]`
    case 'tool.called':
      return `    ${e.ok ? '•' : '✗'} ${e.name} ${argSummary(e.args)}${e.ok ? '' : ` — ${e.summary}`}`
    case 'mcp.servers':
      return e.servers
        .map((s) =>
          s.ok
            ? `  MCP server ${s.server}: ${s.tools} tool(s)${s.message ? ` (${s.message})` : ''}`
            : `  ✗ MCP server ${s.server} ${s.lost ? 'stopped during the task' : 'not started'}: ${s.message}`,
        )
        .join('\n')
    case 'phase.changed':
      return `  phase ${e.from} → ${e.to} (${e.reason})`
    case 'gate.result':
      return `  gate ${mark[e.severity]} ${e.gate}${e.severity === 'pass' ? '' : `: ${e.message.split('\n')[0]}`}`
    case 'stall.detected':
      return `  ⚠ stall (${e.kind}): ${e.message} → ${e.action === 'rollback' ? 'rolling back' : `recovery ${e.recovery}`}`
    case 'task.completed':
      return (
        `✔ Task ${e.task} complete in ${e.iterations} iteration(s)${e.costUsd > 0 ? `, ~$${e.costUsd.toFixed(4)}` : ''} — snapshot ${e.postTag}\n  ${e.summary.split('\n')[0]}` +
        (e.receipt ? `\n${formatReceipt(e.receipt)}` : '')
      )
    case 'task.failed':
      return `✘ Task ${e.task} failed (${e.reason}): ${e.message}${e.receipt ? `\n${formatReceipt(e.receipt)}` : ''}`
    case 'checkpoint.written':
      return `  ⤓ checkpoint (${e.reason === 'context-error' ? "the provider's context-length error" : `context ${Math.round((e.usedTokens / e.windowTokens) * 100)}% of ${e.windowTokens} tokens`}, by the ${e.by}) → .ralph/progress.md`
    case 'limit.waiting':
      return formatLimitCountdown(e.resetAt)
    case 'limit.resumed':
      return `  ▶ usage limit reset after ${formatDuration(e.waitedMs)}: resuming iteration ${e.iteration ?? ''}`.trimEnd()
    case 'budget.warning':
      return `  ! ${e.message}`
    case 'llm.retry':
      return `    retrying in ${Math.round(e.delayMs / 100) / 10} s (${e.reason})`
    default:
      return null
  }
}
