import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { McpList, McpServerInfo } from '../../../../shared/api/mcp'
import { renderWithProviders, sentInput } from '../../test/render'
import { McpServers } from './McpServers'

const server = (patch: Partial<McpServerInfo>): McpServerInfo => ({
  name: 'x',
  origin: 'app',
  location: 'stdio',
  sandboxed: true,
  target: 'node server.js',
  keys: [],
  enabled: true,
  secrets: [],
  missingSecrets: [],
  approval: patch.origin === 'project' ? 'approved' : 'user',
  fingerprint: 'f'.repeat(64),
  detail: { kind: 'stdio', command: 'node', args: ['server.js'], env: [] },
  ...patch,
})

const projects = () => [
  { id: 1, name: 'old', path: '/w/old', createdAt: 1, lastOpenedAt: 10 },
  { id: 2, name: 'shop', path: '/w/shop', createdAt: 1, lastOpenedAt: 20 },
]

/** A fake core holding the app-level list: save, remove and secrets change it as the real one does. */
function fakeCore(initial: McpServerInfo[]) {
  let list: McpList = { servers: initial, problems: [] }
  return {
    'projects.list': projects,
    'mcp.list': () => list,
    'mcp.saveServer': (input: unknown) => {
      const { name, server: s } = input as { name: string; server: Record<string, unknown> }
      const remote = 'url' in s
      const keys = Object.keys(((remote ? s.headers : s.env) ?? {}) as object)
      list = {
        ...list,
        servers: [
          ...list.servers,
          server({
            name,
            location: remote ? 'http' : 'stdio',
            sandboxed: !remote,
            target: remote ? String(s.url) : [s.command, ...((s.args as string[]) ?? [])].join(' '),
            keys,
          }),
        ],
      }
      return list
    },
    'mcp.removeServer': (input: unknown) => {
      const { name } = input as { name: string }
      list = { ...list, servers: list.servers.filter((s) => s.name !== name) }
      return list
    },
    'mcp.setSecret': (input: unknown) => {
      const { name } = input as { name: string }
      list = {
        ...list,
        servers: list.servers.map((s) => ({
          ...s,
          missingSecrets: s.missingSecrets.filter((m) => m !== name),
        })),
      }
      return { ok: true }
    },
  }
}

describe('Settings → MCP servers', () => {
  it('lists only the app-level servers with where each runs, and says so when there are none', async () => {
    renderWithProviders(<McpServers />, {
      ...fakeCore([
        server({ name: 'from-file', origin: 'project' }),
        server({ name: 'docs', location: 'http', sandboxed: false, target: 'https://docs.example.com/mcp' }),
        server({ name: 'everything', keys: ['API_KEY'] }),
      ]),
    })
    const list = await screen.findByRole('list', { name: 'App-level MCP servers' })
    const rows = within(list).getAllByRole('listitem')
    expect(rows.map((r) => r.getAttribute('aria-label'))).toEqual(['docs', 'everything'])
    expect(rows[0]).toHaveTextContent('Remote (http)')
    expect(rows[0]).toHaveTextContent('https://docs.example.com/mcp')
    expect(rows[1]).toHaveTextContent('Sandboxed (stdio)')
    expect(rows[1]).toHaveTextContent('Environment: API_KEY (values kept in the vault)')
    // The list is read in the project opened last, whose sandbox runs the tests.
    expect(screen.getByText('Tests run in the sandbox of shop, the project opened last.')).toBeInTheDocument()

    renderWithProviders(<McpServers />, fakeCore([]))
    expect(await screen.findByText(/No app-level servers yet/)).toBeInTheDocument()
  })

  it('adds a stdio server, validating inline first; env values are sent once and never shown back', async () => {
    const view = renderWithProviders(<McpServers />, fakeCore([server({ name: 'taken' })]))
    const form = await screen.findByRole('form', { name: 'Add an MCP server' })
    await userEvent.click(within(form).getByRole('button', { name: 'Add server' }))
    expect(within(form).getByLabelText('Name')).toHaveAccessibleDescription(
      'Give the server a name, e.g. github.',
    )
    expect(within(form).getByLabelText('Command')).toHaveAccessibleDescription(
      'Enter the program that starts the server, e.g. node or npx.',
    )
    await userEvent.type(within(form).getByLabelText('Name'), 'taken')
    await userEvent.type(within(form).getByLabelText('Command'), 'node')
    await userEvent.type(within(form).getByLabelText(/Arguments/), 'server.js{enter}stdio')
    await userEvent.type(within(form).getByLabelText(/Environment/), 'no equals sign')
    await userEvent.click(within(form).getByRole('button', { name: 'Add server' }))
    expect(within(form).getByLabelText('Name')).toHaveAccessibleDescription(
      'There is already a server called “taken”.',
    )
    expect(within(form).getByLabelText(/Environment/)).toHaveAccessibleDescription(
      'Line 1: write NAME=value.',
    )
    expect(view.calls.some((c) => c.name === 'mcp.saveServer')).toBe(false)

    await userEvent.clear(within(form).getByLabelText('Name'))
    await userEvent.type(within(form).getByLabelText('Name'), 'everything')
    await userEvent.clear(within(form).getByLabelText(/Environment/))
    await userEvent.type(within(form).getByLabelText(/Environment/), 'API_KEY=sekret-123')
    await userEvent.click(within(form).getByRole('button', { name: 'Add server' }))
    await screen.findByText('Added everything.')
    expect(sentInput(view, 'mcp.saveServer')).toEqual({
      projectId: 2,
      name: 'everything',
      server: { command: 'node', args: ['server.js', 'stdio'], env: { API_KEY: 'sekret-123' } },
    })
    const row = screen.getByRole('listitem', { name: 'everything' })
    expect(row).toHaveTextContent('node server.js stdio')
    expect(document.body).not.toHaveTextContent('sekret-123')
    expect(within(form).getByLabelText('Name')).toHaveValue('')
  })

  it('adds a remote server and checks its address', async () => {
    const view = renderWithProviders(<McpServers />, fakeCore([]))
    const form = await screen.findByRole('form', { name: 'Add an MCP server' })
    await userEvent.click(within(form).getByRole('radio', { name: 'A remote server (http)' }))
    await userEvent.type(within(form).getByLabelText('Name'), 'docs')
    await userEvent.type(within(form).getByLabelText('Address'), 'docs.example.com')
    await userEvent.type(within(form).getByLabelText(/Headers/), 'Authorization: Bearer ${{DOCS}')
    await userEvent.click(within(form).getByRole('button', { name: 'Add server' }))
    expect(within(form).getByLabelText('Address')).toHaveAccessibleDescription(
      'Enter the server’s address, starting with https:// (or http://).',
    )
    await userEvent.clear(within(form).getByLabelText('Address'))
    await userEvent.type(within(form).getByLabelText('Address'), 'https://docs.example.com/mcp')
    await userEvent.click(within(form).getByRole('button', { name: 'Add server' }))
    await screen.findByText('Added docs.')
    expect(sentInput(view, 'mcp.saveServer')).toEqual({
      projectId: 2,
      name: 'docs',
      server: {
        type: 'http',
        url: 'https://docs.example.com/mcp',
        headers: { Authorization: 'Bearer ${DOCS}' },
      },
    })
    expect(screen.getByRole('listitem', { name: 'docs' })).toHaveTextContent('Remote (http)')
  })

  it('tests a server: progress while it starts, then its tools; a failure shows the reason', async () => {
    let release: (v: unknown) => void = () => undefined
    const view = renderWithProviders(<McpServers />, {
      ...fakeCore([server({ name: 'everything' }), server({ name: 'broken', target: 'nope' })]),
      'mcp.test': (input) =>
        (input as { server: string }).server === 'everything'
          ? new Promise((resolve) => {
              release = resolve
            })
          : { ok: false, message: 'spawn nope ENOENT', tools: [] },
    })
    const row = await screen.findByRole('listitem', { name: 'everything' })
    await userEvent.click(within(row).getByRole('button', { name: 'Test' }))
    expect(await within(row).findByRole('status')).toHaveTextContent(
      'Starting everything in the sandbox and asking for its tools…',
    )
    expect(within(row).getByRole('button', { name: 'Testing…' })).toBeDisabled()
    release({
      ok: true,
      message: '',
      tools: [
        {
          name: 'echo',
          modelName: 'mcp__everything__echo',
          readOnly: true,
          description: 'Echoes back the input',
        },
        { name: 'add', modelName: 'mcp__everything__add', readOnly: false, description: 'Adds two numbers' },
      ],
    })
    const tools = await within(row).findByRole('list', { name: 'Tools of everything' })
    expect(within(row).getByTestId('mcp-test-result')).toHaveTextContent('Started. 2 tools:')
    expect(tools).toHaveTextContent('echoread-only Echoes back the input')
    expect(tools).toHaveTextContent('add Adds two numbers')
    expect(sentInput(view, 'mcp.test')).toEqual({ projectId: 2, server: 'everything' })

    const broken = screen.getByRole('listitem', { name: 'broken' })
    await userEvent.click(within(broken).getByRole('button', { name: 'Test' }))
    expect(await within(broken).findByTestId('mcp-test-result')).toHaveTextContent(
      'It did not start: spawn nope ENOENT',
    )
  })

  it('removes a server only after confirming', async () => {
    const view = renderWithProviders(<McpServers />, fakeCore([server({ name: 'everything' })]))
    const row = await screen.findByRole('listitem', { name: 'everything' })
    await userEvent.click(within(row).getByRole('button', { name: 'Remove' }))
    const dialog = await screen.findByRole('alertdialog', { name: 'Remove the MCP server “everything”?' })
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(view.calls.some((c) => c.name === 'mcp.removeServer')).toBe(false)
    await userEvent.click(within(row).getByRole('button', { name: 'Remove' }))
    await userEvent.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Remove' }),
    )
    expect(await screen.findByText(/No app-level servers yet/)).toBeInTheDocument()
    expect(view.calls.filter((c) => c.name === 'mcp.removeServer').map((c) => c.input)).toEqual([
      { projectId: 2, name: 'everything' },
    ])
  })

  it('stores a missing ${NAME} secret through the vault and clears the field', async () => {
    const view = renderWithProviders(
      <McpServers />,
      fakeCore([server({ name: 'gh', secrets: ['GH_TOKEN'], missingSecrets: ['GH_TOKEN'] })]),
    )
    const field = await screen.findByLabelText('Secret GH_TOKEN')
    expect(field).toHaveAccessibleDescription(
      'The server reads ${GH_TOKEN} and cannot start without it. Kept in the vault, never shown again.',
    )
    expect(field).toHaveAttribute('type', 'password')
    await userEvent.type(field, 'ghp_1234')
    await userEvent.click(screen.getByRole('button', { name: 'Save secret' }))
    await waitFor(() => expect(screen.queryByLabelText('Secret GH_TOKEN')).not.toBeInTheDocument())
    expect(sentInput(view, 'mcp.setSecret')).toEqual({ name: 'GH_TOKEN', value: 'ghp_1234' })
  })

  it('asks for a project first when there is none', async () => {
    renderWithProviders(<McpServers />, { 'projects.list': () => [] })
    expect(await screen.findByText(/Open a project first/)).toBeInTheDocument()
  })
})
