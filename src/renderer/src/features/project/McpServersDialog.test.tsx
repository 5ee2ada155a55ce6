import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { McpList, McpServerInfo } from '../../../../shared/api/mcp'
import { renderWithProviders } from '../../test/render'
import { McpServersDialog } from './McpServersDialog'

const server = (patch: Partial<McpServerInfo>): McpServerInfo => ({
  name: 'x',
  origin: 'project',
  location: 'stdio',
  sandboxed: true,
  target: 'node server.js',
  keys: [],
  enabled: true,
  secrets: [],
  missingSecrets: [],
  approval: (patch.origin ?? 'project') === 'project' ? 'approved' : 'user',
  fingerprint: 'f'.repeat(64),
  detail: { kind: 'stdio', command: 'node', args: ['server.js'], env: [] },
  ...patch,
})

describe('McpServersDialog', () => {
  it("lists the project's and the app's servers when opened, and switches one off", async () => {
    let state: McpList = {
      servers: [
        server({ name: 'everything' }),
        server({
          name: 'docs',
          origin: 'app',
          location: 'http',
          sandboxed: false,
          target: 'https://docs.example.com/mcp',
          missingSecrets: ['DOCS_TOKEN'],
        }),
      ],
      problems: [{ server: 'bad', message: 'it needs a command or a url' }],
    }
    const view = renderWithProviders(<McpServersDialog projectId={7} />, {
      'mcp.list': () => state,
      'mcp.setEnabled': (input) => {
        const { server: name, enabled } = input as { server: string; enabled: boolean }
        state = { ...state, servers: state.servers.map((s) => (s.name === name ? { ...s, enabled } : s)) }
        return state
      },
    })
    // Nothing is asked of the core until the user opens it.
    expect(view.calls).toHaveLength(0)
    await userEvent.click(screen.getByRole('button', { name: 'MCP servers' }))
    const dialog = await screen.findByRole('dialog', { name: 'MCP servers' })
    const everything = await within(dialog).findByRole('switch', { name: 'everything' })
    const docs = within(dialog).getByRole('switch', { name: 'docs' })
    expect(everything).toBeChecked()
    expect(everything).toHaveAccessibleDescription(
      'From .mcp.json · runs on this machine in the sandbox · on: the model can use its tools',
    )
    expect(docs).toHaveAccessibleDescription(
      'From Settings (every project) · remote (http), outside the sandbox · on: the model can use its tools',
    )
    expect(dialog).toHaveTextContent('It needs the secret DOCS_TOKEN: save it in Settings.')
    expect(within(dialog).getByRole('alert')).toHaveTextContent('bad: it needs a command or a url')

    await userEvent.click(everything)
    await waitFor(() => expect(everything).not.toBeChecked())
    expect(view.calls.find((c) => c.name === 'mcp.setEnabled')?.input).toEqual({
      projectId: 7,
      server: 'everything',
      enabled: false,
    })
    await waitFor(() =>
      expect(everything).toHaveAccessibleDescription(
        'From .mcp.json · runs on this machine in the sandbox · off: the model does not see it',
      ),
    )
  })

  it('explains .mcp.json when there are none, without command-line instructions', async () => {
    renderWithProviders(<McpServersDialog projectId={1} />, {
      'mcp.list': () => ({ servers: [], problems: [] }),
    })
    await userEvent.click(screen.getByRole('button', { name: 'MCP servers' }))
    const dialog = await screen.findByRole('dialog', { name: 'MCP servers' })
    await within(dialog).findByText('No MCP servers for this project')
    expect(dialog).toHaveTextContent('A project lists its own in a file called .mcp.json at its root')
    expect(within(dialog).getByRole('link', { name: 'Settings' })).toHaveAttribute('href', '#/settings')
    expect(dialog.textContent).not.toMatch(/ralph mcp|npx|\$ /)
  })

  it('shows a switch that failed to save', async () => {
    renderWithProviders(<McpServersDialog projectId={1} />, {
      'mcp.list': () => ({ servers: [server({ name: 'everything' })], problems: [] }),
      'mcp.setEnabled': () => {
        throw new Error('.ralph/config.json is not valid JSON')
      },
    })
    await userEvent.click(screen.getByRole('button', { name: 'MCP servers' }))
    const sw = await screen.findByRole('switch', { name: 'everything' })
    await userEvent.click(sw)
    expect(await screen.findByRole('alert')).toHaveTextContent('.ralph/config.json is not valid JSON')
    expect(sw).toBeChecked()
  })
})
