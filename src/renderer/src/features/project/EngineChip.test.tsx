import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { EngineInstallInfo, ProjectEngineSetting } from '../../../../shared/api/engines'
import { keysFor } from '../../app/eventInvalidation'
import { renderWithProviders } from '../../test/render'
import { EngineChip } from './EngineChip'

const install = (patch: Partial<EngineInstallInfo>): EngineInstallInfo => ({
  id: 'claude-code',
  label: 'Claude Code',
  installed: true,
  path: '/bin/claude',
  version: '2.1.328',
  supported: true,
  hint: null,
  minVersion: '2.0.0',
  ...patch,
})

const installs = [
  install({}),
  install({
    id: 'codex',
    label: 'Codex',
    installed: false,
    path: null,
    version: null,
    supported: false,
    hint: 'Install Codex: `npm install -g @openai/codex`, then run `codex login`.',
    minVersion: '0.50.0',
  }),
]

describe('EngineChip', () => {
  it('names the engine, opens the chooser, disables a missing CLI with the reason, saves the choice', async () => {
    let setting: ProjectEngineSetting = { engine: 'built-in', engineModel: null }
    const view = renderWithProviders(<EngineChip projectId={4} />, {
      'engines.project': () => setting,
      'engines.list': () => ({ installs, project: setting, checkedAt: 0 }),
      'engines.setForProject': (input) => {
        const { engine, engineModel } = input as ProjectEngineSetting
        setting = { engine, engineModel }
        return setting
      },
    })
    const chip = await screen.findByRole('button', { name: 'Engine: Built-in' })
    // Built-in needs no CLI lookup.
    expect(view.calls.map((c) => c.name)).toEqual(['engines.project'])
    await userEvent.click(chip)
    const dialog = await screen.findByRole('dialog', { name: 'Engine' })
    const group = await within(dialog).findByRole('radiogroup', { name: 'Engine' })
    const builtIn = within(group).getByRole('radio', { name: 'Built-in' })
    const claude = within(group).getByRole('radio', { name: 'Claude Code' })
    const codex = within(group).getByRole('radio', { name: 'Codex' })
    expect(builtIn).toBeChecked()
    expect(claude).toBeEnabled()
    expect(claude).toHaveAccessibleDescription('2.1.328')
    expect(codex).toBeDisabled()
    expect(codex).toHaveAccessibleDescription('Codex is not installed on this machine.')
    expect(codex.closest('label')).toHaveTextContent('Not installed')
    const save = within(dialog).getByRole('button', { name: 'Save engine' })
    expect(save).toHaveAttribute('aria-disabled', 'true')

    await userEvent.click(claude)
    const model = within(dialog).getByRole('textbox', { name: 'Engine model' })
    expect(model).toHaveAttribute('placeholder', 'Claude Code’s default')
    await userEvent.type(model, 'sonnet')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save engine' }))
    await waitFor(() =>
      expect(view.calls.find((c) => c.name === 'engines.setForProject')?.input).toEqual({
        projectId: 4,
        engine: 'claude-code',
        engineModel: 'sonnet',
      }),
    )
    expect(await within(dialog).findByRole('status')).toHaveTextContent(
      'Saved: this project’s next tasks run with Claude Code.',
    )
    await userEvent.keyboard('{Escape}')
    expect(await screen.findByRole('button', { name: 'Engine: Claude Code 2.1.328' })).toBeInTheDocument()
  })

  it('a change of any project’s engine refreshes the lists and the settings', () => {
    expect(keysFor('settings.changed', { key: 'engine:4' })).toEqual([['engines.list'], ['engines.project']])
    expect(keysFor('settings.changed', { key: 'llm' })).toEqual([['settings.getProvider']])
  })
})
