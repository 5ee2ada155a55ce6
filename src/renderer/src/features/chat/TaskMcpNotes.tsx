import { AlertTriangle } from 'lucide-react'
import { useEffect, useMemo } from 'react'
import type { McpTaskNote } from '../../../../shared/api/mcp'
import type { LoopEvent } from '../../../../shared/loopEvents'
import { useCall } from '../../app/queries'
import { useRuns } from '../../app/runStore'
import { Tooltip } from '../../ui'
import './taskMcpNotes.css'

/** What the line says of a server that did not start, or stopped during the task. */
export function mcpNoteText(note: McpTaskNote): string {
  const what =
    note.kind === 'start'
      ? 'did not start'
      : note.kind === 'capped'
        ? 'had tools left out'
        : 'stopped during the task'
  return `MCP server "${note.server}" ${what}: ${note.message}`
}

const HINT =
  'MCP servers are extra tools from .mcp.json or Settings › MCP servers. The task went on without this one: its ' +
  'tools answered the model with an error.'

type ServersEvent = Extract<LoopEvent, { type: 'mcp.servers' }>

/** The lines the loop reported while this page listened: kept in the run store. */
function useLiveNotes(projectId: number, task: number | null): McpTaskNote[] {
  const events = useRuns((s) => s.runs[projectId]?.events)
  return useMemo(() => {
    if (task === null || !events) return []
    return (
      events
        .filter((e): e is ServersEvent => e.type === 'mcp.servers' && e.task === task)
        // A server that started says something only when some of its tools were left out.
        .flatMap((e) => e.servers.filter((s) => !s.ok || s.message !== ''))
        .map((s) => ({
          server: s.server,
          kind: s.lost ? ('lost' as const) : s.ok ? ('capped' as const) : ('start' as const),
          message: s.message,
        }))
    )
  }, [events, task])
}

/**
 * A task's MCP servers that did not start or stopped mid-task, one line each: live while it runs (the loop's
 * event), and read back from the run's rows after a reload. Nothing when all of them ran.
 */
export function TaskMcpNotes({
  projectId,
  task,
  runId,
}: {
  projectId: number
  task: number | null
  runId: number | null
}) {
  const live = useLiveNotes(projectId, task)
  const stored = useCall('mcp.taskNotes', { projectId, runId: runId ?? 0 }, { enabled: runId !== null })
  const { refetch } = stored
  // A line heard live is stored by then: read back, so it stays once the live events are gone.
  useEffect(() => {
    if (live.length > 0 && runId !== null) void refetch()
  }, [live.length, runId, refetch])
  const notes = useMemo(() => {
    const seen = new Set<string>()
    return [...(stored.data ?? []), ...live].filter((n) => {
      const key = `${n.kind}\u0000${n.server}\u0000${n.message}`
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
  }, [stored.data, live])
  if (notes.length === 0) return null
  return (
    <ul className="task-mcp-notes" aria-label="MCP servers">
      {notes.map((n) => (
        <li key={`${n.kind}-${n.server}-${n.message}`} className="task-mcp-note">
          {/* What an MCP server is, on hover and keyboard focus of the mark (read out with it). */}
          <Tooltip content={HINT}>
            <span className="task-mcp-note-icon" role="img" aria-label={HINT} tabIndex={0}>
              <AlertTriangle size={13} aria-hidden />
            </span>
          </Tooltip>
          <span>{mcpNoteText(n)}</span>
        </li>
      ))}
    </ul>
  )
}
