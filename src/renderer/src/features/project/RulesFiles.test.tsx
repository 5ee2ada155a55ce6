import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import type { RulesList } from '../../../../shared/api/rules'
import { renderWithProviders } from '../../test/render'
import { RulesFiles } from './RulesFiles'

describe('RulesFiles', () => {
  it('lists the rules files when opened, and switches one off', async () => {
    let state: RulesList = {
      files: [
        { path: 'AGENTS.md', bytes: 40_000, capped: true, enabled: true },
        { path: 'CLAUDE.md', bytes: 200, capped: false, enabled: true },
      ],
      fileCapChars: 12_000,
      totalCapChars: 24_000,
    }
    const view = renderWithProviders(<RulesFiles projectId={7} />, {
      'rules.list': () => state,
      'rules.set': (input) => {
        const { path, enabled } = input as { path: string; enabled: boolean }
        state = { ...state, files: state.files.map((f) => (f.path === path ? { ...f, enabled } : f)) }
        return state
      },
    })
    // Nothing is asked of the core until the user opens it.
    expect(view.calls).toHaveLength(0)
    await userEvent.click(screen.getByRole('button', { name: 'Rules files' }))
    const agents = await screen.findByRole('switch', { name: 'AGENTS.md' })
    const claude = screen.getByRole('switch', { name: 'CLAUDE.md' })
    expect(agents).toBeChecked()
    expect(agents).toHaveAccessibleDescription('39.1 KB — capped: the model sees its first 12,000 characters')
    expect(claude).toHaveAccessibleDescription('200 bytes — the model reads it')

    await userEvent.click(claude)
    await waitFor(() => expect(claude).not.toBeChecked())
    expect(view.calls.find((c) => c.name === 'rules.set')?.input).toEqual({
      projectId: 7,
      path: 'CLAUDE.md',
      enabled: false,
    })
    await waitFor(() =>
      expect(claude).toHaveAccessibleDescription('200 bytes — off: the model does not read it'),
    )
  })

  it('a double click toggles once: the second click lands while the first call runs and is ignored', async () => {
    let state: RulesList = {
      files: [{ path: 'AGENTS.md', bytes: 200, capped: false, enabled: true }],
      fileCapChars: 12_000,
      totalCapChars: 24_000,
    }
    let release: () => void = () => undefined
    const view = renderWithProviders(<RulesFiles projectId={7} />, {
      'rules.list': () => state,
      'rules.set': async (input) => {
        const { path, enabled } = input as { path: string; enabled: boolean }
        await new Promise<void>((resolve) => (release = resolve))
        state = { ...state, files: state.files.map((f) => (f.path === path ? { ...f, enabled } : f)) }
        return state
      },
    })
    await userEvent.click(screen.getByRole('button', { name: 'Rules files' }))
    const agents = await screen.findByRole('switch', { name: 'AGENTS.md' })
    await userEvent.dblClick(agents)
    await waitFor(() => expect(view.calls.filter((c) => c.name === 'rules.set')).toHaveLength(1))
    expect(agents).toBeDisabled()
    release()
    await waitFor(() => expect(agents).not.toBeDisabled())
    expect(agents).not.toBeChecked()
    expect(view.calls.filter((c) => c.name === 'rules.set')).toHaveLength(1)
  })

  it('says when there are none', async () => {
    renderWithProviders(<RulesFiles projectId={1} />, {
      'rules.list': () => ({ files: [], fileCapChars: 12_000, totalCapChars: 24_000 }),
    })
    await userEvent.click(screen.getByRole('button', { name: 'Rules files' }))
    expect(await screen.findByText(/No rules files at the project root/)).toBeInTheDocument()
  })

  it('shows what went wrong when the list cannot be read', async () => {
    renderWithProviders(<RulesFiles projectId={1} />, {
      'rules.list': () => {
        throw new Error('.ralph/config.json: rules.disabled: expected array')
      },
    })
    await userEvent.click(screen.getByRole('button', { name: 'Rules files' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('rules.disabled: expected array')
  })
})
