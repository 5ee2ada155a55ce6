import { screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { renderWithProviders } from '../test/render'
import { StatusBar } from './StatusBar'

const info = (sandbox: { kind: string; reason: string | null }) => () => ({
  version: '0.1.0',
  host: 'web',
  nativeFolderPicker: false,
  appDataDir: '/d',
  platform: 'linux',
  sandbox,
})
const provider = () => ({ effective: null })

describe('StatusBar', () => {
  it('says plainly when the model’s commands are not sandboxed, and why', async () => {
    renderWithProviders(<StatusBar route={{ page: 'projects' }} />, {
      'app.info': info({ kind: 'none', reason: 'bubblewrap (bwrap) is not installed' }),
      'settings.getProvider': provider,
    })
    expect(await screen.findByText('Commands not sandboxed')).toBeTruthy()
  })

  it('names the sandbox in use', async () => {
    renderWithProviders(<StatusBar route={{ page: 'projects' }} />, {
      'app.info': info({ kind: 'bubblewrap', reason: null }),
      'settings.getProvider': provider,
    })
    expect(await screen.findByText('Sandboxed (bubblewrap)')).toBeTruthy()
    expect(screen.queryByText('Commands not sandboxed')).toBeNull()
  })
})
