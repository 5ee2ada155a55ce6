import { act, screen, within } from '@testing-library/react'
import { beforeEach, describe, expect, it } from 'vitest'
import { renderWithProviders } from '../../test/render'
import { useRuns } from '../../app/runStore'
import { TaskMcpNotes } from './TaskMcpNotes'

const lines = () =>
  within(screen.getByRole('list', { name: 'MCP servers' }))
    .getAllByRole('listitem')
    .map((li) => li.textContent)

describe('a task card’s MCP server lines', () => {
  beforeEach(() => useRuns.setState({ runs: {} }))

  it('reads back the run’s stored lines (after a reload)', async () => {
    renderWithProviders(<TaskMcpNotes projectId={1} task={2} runId={7} />, {
      'mcp.taskNotes': (input) => {
        expect(input).toEqual({ projectId: 1, runId: 7 })
        return [
          { server: 'ghost', kind: 'start', message: 'exec: ghost-mcp: not found' },
          { server: 'dying', kind: 'lost', message: 'it ended with exit code 7' },
        ]
      },
    })
    await screen.findByRole('list', { name: 'MCP servers' })
    expect(lines()).toEqual([
      'MCP server "ghost" did not start: exec: ghost-mcp: not found',
      'MCP server "dying" stopped during the task: it ended with exit code 7',
    ])
  })

  it('shows a line live from the loop’s event, once, and nothing for servers that started', async () => {
    const view = renderWithProviders(<TaskMcpNotes projectId={1} task={3} runId={null} />)
    expect(screen.queryByRole('list', { name: 'MCP servers' })).toBeNull()
    const servers = [
      { server: 'everything', ok: true, tools: 12, message: '' },
      { server: 'bad', ok: false, tools: 0, message: 'it ended during set-up with exit code 1' },
    ]
    act(() => useRuns.getState().onEvent(1, { type: 'mcp.servers', task: 3, servers }))
    act(() => useRuns.getState().onEvent(1, { type: 'mcp.servers', task: 3, servers }))
    // Another task's lines are not this card's.
    act(() =>
      useRuns
        .getState()
        .onEvent(1, { type: 'mcp.servers', task: 4, servers: [{ ...servers[1]!, server: 'x' }] }),
    )
    expect(lines()).toEqual(['MCP server "bad" did not start: it ended during set-up with exit code 1'])
    // No run yet: nothing to read back.
    expect(view.calls.some((c) => c.name === 'mcp.taskNotes')).toBe(false)
  })
})
