import { screen, waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { ProjectEngineSetting } from '../../../../shared/api/engines'
import { StatusBar } from '../../app/StatusBar'
import { appInfo } from '../../test/fixtures'
import { renderWithProviders } from '../../test/render'

const project = () => ({
  id: 4,
  name: 'bakery',
  path: '/p/bakery',
  createdAt: 1,
  lastOpenedAt: 1,
  state: null,
})
const provider = () => ({ effective: { provider: 'anthropic', model: 'claude-sonnet-4-5' } })

function renderOn(setting: ProjectEngineSetting) {
  return renderWithProviders(<StatusBar route={{ page: 'project', projectId: 4 }} />, {
    'app.info': () => appInfo({ sandbox: { kind: 'bubblewrap', reason: null } }),
    'settings.getProvider': provider,
    'projects.get': project,
    'snapshots.baselineState': () => null,
    'engines.project': () => setting,
  })
}

describe('the status bar and the project’s engine', () => {
  it('names the agent and its model in place of provider/model', async () => {
    const view = renderOn({ engine: 'codex', engineModel: 'gpt-5-codex' })
    await waitFor(() =>
      expect(screen.getByTestId('status-provider')).toHaveTextContent('Codex · gpt-5-codex'),
    )
    // The setting alone: no CLI is asked its version for the status bar.
    expect(view.calls.some((c) => c.name === 'engines.list')).toBe(false)
  })

  it('keeps provider/model for the built-in loop', async () => {
    renderOn({ engine: 'built-in', engineModel: null })
    await waitFor(() =>
      expect(screen.getByTestId('status-provider')).toHaveTextContent('anthropic · claude-sonnet-4-5'),
    )
  })
})
