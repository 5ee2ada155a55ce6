import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { SandboxSettings } from '../../../../shared/api/sandbox'
import { App } from '../../app/App'
import { appInfo, projectDetail } from '../../test/fixtures'
import { renderWithProviders } from '../../test/render'

const base: SandboxSettings = {
  kind: 'bubblewrap',
  network: true,
  allowEnvFiles: false,
  passEnv: [],
  homeAllow: [],
  toolchainDirs: ['.nvm'],
  limits: { memoryMb: 4096, processes: 512, fileSizeMb: 2048, tmpMb: 512 },
}

describe('Settings: the sandbox of each project', () => {
  it('shows whether commands may read .env files and switches it per project', async () => {
    window.location.hash = '#/settings'
    const state = new Map([
      [1, { ...base }],
      [2, { ...base, allowEnvFiles: true, network: false }],
    ])
    const view = renderWithProviders(<App />, {
      'app.info': () => appInfo(),
      'projects.list': () => [
        projectDetail({ id: 1, name: 'shop', path: '/w/shop' }),
        projectDetail({ id: 2, name: 'api', path: '/w/api' }),
      ],
      'tasks.activity': () => [],
      'settings.getProvider': () => ({
        settings: null,
        effective: null,
        overriddenByEnv: [],
        apiKey: { present: false, backend: 'none', hint: null, envVar: null },
      }),
      'settings.detectLocal': () => [],
      'sandbox.get': (input) => state.get((input as { projectId: number }).projectId),
      'sandbox.set': (input) => {
        const { projectId, allowEnvFiles } = input as { projectId: number; allowEnvFiles: boolean }
        const next = { ...state.get(projectId)!, allowEnvFiles }
        state.set(projectId, next)
        return next
      },
    })
    const list = await screen.findByRole('list', { name: 'Sandbox settings per project' })
    const switches = await waitFor(() => {
      const found = screen.getAllByRole('switch', { name: 'Commands may read .env files' })
      expect(found[0]).toBeEnabled()
      return found
    })
    expect(switches[0]).not.toBeChecked()
    expect(switches[1]).toBeChecked()
    expect(list).toHaveTextContent(
      '.env files are hidden from the model’s commands; the file tools never show them',
    )
    expect(list).toHaveTextContent(
      'Network off. Limits per command: 4096 MB memory, 512 processes, 2048 MB per file, 512 MB /tmp.',
    )
    await userEvent.click(switches[0]!)
    await waitFor(() => expect(switches[0]).toBeChecked())
    expect(view.calls.filter((c) => c.name === 'sandbox.set').map((c) => c.input)).toEqual([
      { projectId: 1, allowEnvFiles: true },
    ])
    expect(state.get(2)!.allowEnvFiles).toBe(true)
  })
})
