import { screen, waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { EngineInstallInfo, ProjectEngineSetting } from '../../../../shared/api/engines'
import { renderWithProviders } from '../../test/render'
import { ComposerEngineWarning } from './ComposerEngineWarning'
import { EngineNote } from './EngineNote'
import { engineOfCard } from './engineTask'
import { commandOf, patchFiles } from './patchFiles'
import { card } from './testData'

const install = (patch: Partial<EngineInstallInfo> = {}): EngineInstallInfo => ({
  id: 'claude-code',
  label: 'Claude Code',
  installed: true,
  path: '/usr/bin/claude',
  version: '2.1.328',
  supported: true,
  hint: null,
  minVersion: '2.0.0',
  ...patch,
})

function renderWarning(setting: ProjectEngineSetting, installs: EngineInstallInfo[]) {
  return renderWithProviders(<ComposerEngineWarning projectId={4} />, {
    'engines.project': () => setting,
    'engines.list': () => ({ installs, project: setting, checkedAt: 0 }),
  })
}

describe('an engine task on its card', () => {
  it('is known by its usage rows whose provider is the engine', () => {
    const model = (provider: string) => ({ provider, model: 'm', usd: 0.01, calls: 1 })
    const cost = card().cost
    expect(
      engineOfCard({ cost: { ...cost, models: [model('openai-compatible'), model('claude-code')] } }),
    ).toBe('claude-code')
    expect(engineOfCard({ cost: { ...cost, models: [model('codex')] } })).toBe('codex')
    expect(engineOfCard({ cost: { ...cost, models: [model('anthropic')] } })).toBe(null)
    expect(engineOfCard({ cost })).toBe(null)
  })

  it('says which engine ran it, with what its cost is on hover', () => {
    renderWithProviders(<EngineNote engine="codex" />, {})
    const note = screen.getByTestId('task-engine')
    expect(note).toHaveTextContent('via Codex')
    expect(note.getAttribute('title')).toMatch(/priced from the model catalog/)
  })

  it('says where the model calls went when the session reported a base URL of the user’s', () => {
    renderWithProviders(<EngineNote engine="codex" login="OPENAI_API_KEY → https://gateway.example/v1" />, {})
    const note = screen.getByTestId('task-engine')
    expect(note).toHaveTextContent('via Codex → https://gateway.example/v1')
    expect(note.getAttribute('title')).toContain(
      "Its model calls used OPENAI_API_KEY → https://gateway.example/v1, through Ralph's proxy",
    )
  })
})

describe('the composer’s engine warning', () => {
  it('says the project’s engine is not installed, with the way to Settings → Engine', async () => {
    renderWarning({ engine: 'claude-code', engineModel: null }, [
      install({ installed: false, version: null }),
    ])
    const warning = await screen.findByTestId('composer-engine-missing')
    expect(warning).toHaveTextContent('This project’s engine, Claude Code, is not installed on this machine')
    expect(screen.getByRole('link', { name: 'Settings → Engine' })).toHaveAttribute('href', '#/settings')
  })

  it('says a too old version', async () => {
    renderWarning({ engine: 'claude-code', engineModel: null }, [
      install({ version: '1.0.0', supported: false }),
    ])
    expect(await screen.findByTestId('composer-engine-missing')).toHaveTextContent(
      'Claude Code, 1.0.0 is older than Ralph needs (2.0.0)',
    )
  })

  it('is silent for an installed engine, and never asks the CLIs for the built-in loop', async () => {
    const view = renderWarning({ engine: 'claude-code', engineModel: null }, [install()])
    await waitFor(() => expect(view.calls.some((c) => c.name === 'engines.list')).toBe(true))
    expect(screen.queryByTestId('composer-engine-missing')).toBeNull()
    const builtIn = renderWarning({ engine: 'built-in', engineModel: null }, [])
    await waitFor(() => expect(builtIn.calls.some((c) => c.name === 'engines.project')).toBe(true))
    expect(builtIn.calls.some((c) => c.name === 'engines.list')).toBe(false)
  })
})

describe('an engine’s patch on its tool line', () => {
  it('names the file it changed, or the first and how many more', () => {
    const read = (changes: unknown) => ({ args: { changes }, cut: false })
    expect(patchFiles('apply_patch', read([{ path: 'src/a.ts', kind: 'update' }]))).toBe('src/a.ts')
    expect(
      patchFiles(
        'apply_patch',
        read([
          { path: 'a.ts', kind: 'add' },
          { path: 'b.ts', kind: 'delete' },
          { path: 'c.ts', kind: 'update' },
        ]),
      ),
    ).toBe('a.ts and 2 more')
    expect(patchFiles('apply_patch', read([]))).toBe(null)
    expect(patchFiles('write_file', read([{ path: 'a.ts' }]))).toBe(null)
  })
})

describe('a shell call on its tool line', () => {
  it('shows its command', () => {
    const read = (args: Record<string, unknown>) => ({ args, cut: false })
    expect(commandOf('run_command', read({ command: ' npm test ' }))).toBe('npm test')
    expect(commandOf('run_command', read({ command: '' }))).toBe(null)
    expect(commandOf('read_file', read({ command: 'ls' }))).toBe(null)
    expect(commandOf('run_command', null)).toBe(null)
  })
})
