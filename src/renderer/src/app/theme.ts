import { create } from 'zustand'
import { readStored, writeStored } from './localStore'

export const themePreferences = ['system', 'light', 'dark'] as const
export type ThemePreference = (typeof themePreferences)[number]
export type Theme = 'light' | 'dark'

export const THEME_STORAGE_KEY = 'ralph.theme'
const DARK_QUERY = '(prefers-color-scheme: dark)'

export function readThemePreference(): ThemePreference {
  // When storage is unavailable (privacy modes), the OS theme is a fine fallback.
  const stored = readStored(THEME_STORAGE_KEY)
  return themePreferences.includes(stored as ThemePreference) ? (stored as ThemePreference) : 'system'
}

const systemTheme = (): Theme => (window.matchMedia?.(DARK_QUERY).matches ? 'dark' : 'light')

export const resolveTheme = (preference: ThemePreference): Theme =>
  preference === 'system' ? systemTheme() : preference

/** tokens.css reads `data-theme`; the resolved theme is also what sonner and (later) Monaco are given. */
function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme
}

interface ThemeState {
  preference: ThemePreference
  theme: Theme
  setPreference(preference: ThemePreference): void
  /** Re-reads the OS theme (it changed while the preference is "system"). */
  syncSystem(): void
}

/** The app's one piece of UI state that outlives a reload: kept in localStorage, applied to <html>. */
export const useTheme = create<ThemeState>()((set, get) => ({
  preference: readThemePreference(),
  theme: resolveTheme(readThemePreference()),
  setPreference(preference) {
    writeStored(THEME_STORAGE_KEY, preference) // when not persisted, still applied for this session
    const theme = resolveTheme(preference)
    applyTheme(theme)
    set({ preference, theme })
  },
  syncSystem() {
    if (get().preference !== 'system') return
    const theme = systemTheme()
    applyTheme(theme)
    set({ theme })
  },
}))

/** Applies the stored theme before the first render and follows the OS from then on; returns the stop. */
export function startTheme(): () => void {
  const { preference, syncSystem } = useTheme.getState()
  const theme = resolveTheme(preference)
  applyTheme(theme)
  useTheme.setState({ theme })
  const media = window.matchMedia?.(DARK_QUERY)
  media?.addEventListener('change', syncSystem)
  return () => media?.removeEventListener('change', syncSystem)
}
