import { screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { AppInfo } from '../../../shared/api/core'
import { appInfo } from '../test/fixtures'
import { renderWithProviders } from '../test/render'
import { StatusBar } from './StatusBar'

const info = (sandbox: AppInfo['sandbox']) => () => appInfo({ sandbox })
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
