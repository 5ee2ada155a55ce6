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

  it('Locate… lists the folders searched, sends the typed path, shows why a program is refused, then the located one', async () => {
    const missing: EngineInstallInfo = {
      id: 'claude-code',
      label: 'Claude Code',
      installed: false,
      path: null,
      version: null,
      supported: false,
      hint: 'Install Claude Code with `npm install -g @anthropic-ai/claude-code`.',
      minVersion: '2.0.0',
      searched: ['/usr/bin', '/bin', '/home/me/.local/bin'],
      located: null,
    }
    let installs = [missing]
    const view = renderWithProviders(<EngineStatusList />, {
      'engines.list': () => ({ installs, project: null, checkedAt: 0 }),
      'engines.locate': (input) => {
        const { path } = input as { path: string }
        if (!path.startsWith('/')) throw new Error('Give the full path of the Claude Code program.')
        installs = [
          {
            ...missing,
            installed: true,
            supported: true,
            version: '2.1.328',
            path,
            hint: null,
            located: path,
          },
        ]
        return installs[0]
      },
    })
    const row = await screen.findByTestId('engine-install-claude-code')
    await userEvent.click(within(row).getByText('Looked in 3 folders'))
    const folders = within(row).getByRole('list', { name: 'Folders searched for Claude Code' })
    expect(
      within(folders)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['/usr/bin', '/bin', '/home/me/.local/bin'])

    await userEvent.click(within(row).getByRole('button', { name: 'Locate…' }))
    const field = within(row).getByLabelText('Path of the Claude Code program')
    expect(within(row).getByRole('button', { name: 'Check and use' })).toHaveAttribute(
      'aria-disabled',
      'true',
    )
    await userEvent.type(field, 'claude')
    await userEvent.click(within(row).getByRole('button', { name: 'Check and use' }))
    expect(await within(row).findByRole('alert')).toHaveTextContent(
      'Give the full path of the Claude Code program.',
    )

    await userEvent.clear(field)
    await userEvent.type(field, '/opt/odd place/claude')
    await userEvent.click(within(row).getByRole('button', { name: 'Check and use' }))
    expect(await within(row).findByText('2.1.328')).toBeInTheDocument()
    expect(view.calls.filter((c) => c.name === 'engines.locate').map((c) => c.input)).toEqual([
      { engine: 'claude-code', path: 'claude' },
      { engine: 'claude-code', path: '/opt/odd place/claude' },
    ])
    expect(within(row).getByText('/opt/odd place/claude').tagName).toBe('CODE')
    expect(within(row).queryByRole('button', { name: 'Locate…' })).toBeNull()
    expect(within(row).queryByText('Looked in 3 folders')).toBeNull()
    expect(within(row).getByRole('button', { name: 'Forget' })).toBeInTheDocument()
  })

  it('in the desktop app, Choose… opens the file picker and checks the program picked', async () => {
    const missing: EngineInstallInfo = {
      id: 'codex',
      label: 'Codex',
      installed: false,
      path: null,
      version: null,
      supported: false,
      hint: 'Install Codex with `npm install -g @openai/codex`.',
      minVersion: '0.169.0',
    }
    const view = renderWithProviders(<EngineStatusList />, {
      'app.info': () => ({
        version: '0.1.0',
        host: 'electron',
        nativeFolderPicker: true,
        nativeFilePicker: true,
        appDataDir: '/data',
        platform: 'linux',
        sandbox: { kind: 'bubblewrap', reason: null },
      }),
      'engines.list': () => ({ installs: [missing], project: null, checkedAt: 0 }),
      'dialog.pickFile': () => ({ path: '/opt/tools/codex' }),
      'engines.locate': (input) => ({
        ...missing,
        installed: true,
        supported: true,
        version: '0.169.0',
        path: (input as { path: string }).path,
        hint: null,
      }),
    })
    const row = await screen.findByTestId('engine-install-codex')
    await userEvent.click(within(row).getByRole('button', { name: 'Locate…' }))
    await userEvent.click(await within(row).findByRole('button', { name: 'Choose…' }))
    await waitFor(() =>
      expect(view.calls.filter((c) => c.name === 'engines.locate').map((c) => c.input)).toEqual([
        { engine: 'codex', path: '/opt/tools/codex' },
      ]),
    )
    expect(view.calls.find((c) => c.name === 'dialog.pickFile')!.input).toEqual({ title: 'Locate Codex' })
  })
})
