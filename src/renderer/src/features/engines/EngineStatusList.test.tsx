import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { EngineInstallInfo } from '../../../../shared/api/engines'
import { renderWithProviders } from '../../test/render'
import { EngineChooser } from './EngineChooser'
import { EngineStatusList } from './EngineStatusList'

const tooOld: EngineInstallInfo = {
  id: 'claude-code',
  label: 'Claude Code',
  installed: true,
  path: '/usr/local/bin/claude',
  version: '1.0.3',
  supported: false,
  hint: 'Claude Code 1.0.3 is older than 2.0.0, the oldest Ralph drives. Update it: Install Claude Code: `npm install -g @anthropic-ai/claude-code`, then run `claude` once to log in.',
  minVersion: '2.0.0',
}
const broken: EngineInstallInfo = {
  id: 'codex',
  label: 'Codex',
  installed: true,
  path: '/usr/local/bin/codex',
  version: null,
  supported: false,
  hint: '`codex --version` failed (error while loading shared libraries). Reinstall it: Install Codex: `npm install -g @openai/codex`, then run `codex login`.',
  minVersion: '0.50.0',
}

describe('EngineStatusList', () => {
  it('says Too old or Does not start with the hint’s commands as code; Check again asks the host to look again', async () => {
    const view = renderWithProviders(<EngineStatusList />, {
      'engines.list': () => ({ installs: [tooOld, broken], project: null, checkedAt: 0 }),
    })
    const list = await screen.findByRole('list', { name: 'Engines on this machine' })
    const claude = await within(list).findByTestId('engine-install-claude-code')
    expect(await within(claude).findByText('Too old')).toBeInTheDocument()
    expect(within(claude).getByText('npm install -g @anthropic-ai/claude-code').tagName).toBe('CODE')
    const codex = within(list).getByTestId('engine-install-codex')
    expect(within(codex).getByText('Does not start')).toBeInTheDocument()
    expect(within(codex).getByText('codex --version').tagName).toBe('CODE')

    await userEvent.click(screen.getByRole('button', { name: 'Check again' }))
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'engines.list').map((c) => c.input)).toContainEqual({
        refresh: true,
      }),
    )
  })

  it('disables a too-old engine in the chooser with the version it needs', async () => {
    renderWithProviders(<EngineChooser projectId={2} />, {
      'engines.list': () => ({
        installs: [tooOld, broken],
        project: { engine: 'built-in', engineModel: null },
        checkedAt: 0,
      }),
    })
    const claude = await screen.findByRole('radio', { name: 'Claude Code' })
    expect(claude).toBeDisabled()
    expect(claude).toHaveAccessibleDescription('Claude Code 1.0.3 is too old: Ralph needs 2.0.0 or later.')
    expect(screen.getByRole('radio', { name: 'Codex' })).toHaveAccessibleDescription(
      'Codex is installed but does not start.',
    )
    expect(screen.getByRole('radio', { name: 'Built-in' })).toBeChecked()
  })
})
