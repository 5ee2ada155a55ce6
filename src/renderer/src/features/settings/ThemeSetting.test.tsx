import { act, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { readThemePreference, startTheme, THEME_STORAGE_KEY, useTheme } from '../../app/theme'
import { ThemeSetting } from './ThemeSetting'

/** A controllable `prefers-color-scheme: dark` media query. */
function fakeOsTheme(dark: boolean) {
  const listeners = new Set<() => void>()
  const media = {
    get matches() {
      return dark
    },
    addEventListener: (_: string, l: () => void) => listeners.add(l),
    removeEventListener: (_: string, l: () => void) => listeners.delete(l),
  }
  vi.stubGlobal('matchMedia', (query: string) => {
    expect(query).toBe('(prefers-color-scheme: dark)')
    return media
  })
  return {
    set(value: boolean) {
      dark = value
      act(() => listeners.forEach((l) => l()))
    },
  }
}

const theme = () => document.documentElement.dataset.theme

describe('theme', () => {
  let stop = () => {}
  beforeEach(() => {
    useTheme.setState({ preference: 'system' })
  })
  afterEach(() => {
    stop()
    vi.unstubAllGlobals()
    delete document.documentElement.dataset.theme
  })

  it('follows the OS while the preference is System', () => {
    const os = fakeOsTheme(false)
    stop = startTheme()
    expect(theme()).toBe('light')
    os.set(true)
    expect(theme()).toBe('dark')
    expect(useTheme.getState().theme).toBe('dark')
    // Nothing chosen, nothing stored.
    expect(localStorage.getItem(THEME_STORAGE_KEY)).toBeNull()
  })

  it('switches from Settings, sets the attribute, persists, and stops following the OS', async () => {
    const os = fakeOsTheme(false)
    stop = startTheme()
    render(<ThemeSetting />)
    const group = screen.getByRole('radiogroup', { name: 'Theme' })
    expect(screen.getByRole('radio', { name: 'System' })).toBeChecked()
    expect(group).toBeInTheDocument()

    await userEvent.click(screen.getByRole('radio', { name: 'Dark' }))
    expect(theme()).toBe('dark')
    expect(localStorage.getItem(THEME_STORAGE_KEY)).toBe('dark')
    expect(screen.getByRole('radio', { name: 'Dark' })).toBeChecked()
    os.set(false)
    expect(theme()).toBe('dark')

    await userEvent.click(screen.getByRole('radio', { name: 'Light' }))
    expect(theme()).toBe('light')
    expect(localStorage.getItem(THEME_STORAGE_KEY)).toBe('light')
  })

  it('arrow keys move between the options like any radio group', async () => {
    fakeOsTheme(false)
    stop = startTheme()
    render(<ThemeSetting />)
    screen.getByRole('radio', { name: 'System' }).focus()
    await userEvent.keyboard('{ArrowRight}')
    expect(screen.getByRole('radio', { name: 'Light' })).toBeChecked()
    expect(theme()).toBe('light')
  })

  it('reads the stored choice when the app starts, and ignores junk', () => {
    fakeOsTheme(true)
    localStorage.setItem(THEME_STORAGE_KEY, 'light')
    expect(readThemePreference()).toBe('light')
    useTheme.setState({ preference: readThemePreference() })
    stop = startTheme()
    expect(theme()).toBe('light')
    localStorage.setItem(THEME_STORAGE_KEY, 'purple')
    expect(readThemePreference()).toBe('system')
  })
})
