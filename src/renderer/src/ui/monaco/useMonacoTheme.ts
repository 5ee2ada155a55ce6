import type * as Monaco from 'monaco-editor'
import { useEffect, useMemo } from 'react'
import { useTheme } from '../../app/theme'
import { defineMonacoTheme } from './theme'

/** Keeps Monaco's theme on the app's resolved theme (Monaco has one theme for every editor on the page). */
export function useMonacoTheme(monaco: typeof Monaco): string {
  const theme = useTheme((s) => s.theme)
  // Tokens do not change at runtime: define each theme once per switch, not on every render.
  const name = useMemo(() => defineMonacoTheme(monaco, theme), [monaco, theme])
  useEffect(() => monaco.editor.setTheme(name), [monaco, name])
  return name
}
