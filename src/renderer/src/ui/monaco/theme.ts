// Monaco's colours come from the same tokens as the CSS (DESIGN.md §15): each token is resolved in a probe element
// whose color-scheme is the wanted theme (tokens use light-dark()), then handed to Monaco as #rrggbb.
import type * as Monaco from 'monaco-editor'
import type { Theme } from '../../app/theme'

export const monacoThemeName = (theme: Theme) => `ralph-${theme}`

function resolver(theme: Theme) {
  const probe = document.createElement('span')
  probe.style.colorScheme = theme
  probe.style.display = 'none'
  document.body.appendChild(probe)
  const canvas = document.createElement('canvas').getContext('2d')
  const read = (token: string): string => {
    probe.style.color = `var(${token})`
    const rgb = getComputedStyle(probe).color
    // The canvas normalises any CSS colour to #rrggbb (or rgba() when translucent).
    if (canvas) {
      canvas.fillStyle = '#000000'
      canvas.fillStyle = rgb
      if (canvas.fillStyle.startsWith('#')) return canvas.fillStyle
    }
    const m = /rgba?\((\d+)[ ,]+(\d+)[ ,]+(\d+)/.exec(rgb)
    return m
      ? `#${m
          .slice(1, 4)
          .map((n) => Number(n).toString(16).padStart(2, '0'))
          .join('')}`
      : '#808080'
  }
  return { read, done: () => probe.remove() }
}

/** Defines (or redefines) the theme for `theme` from the current tokens and returns its name. */
export function defineMonacoTheme(monaco: typeof Monaco, theme: Theme): string {
  const { read, done } = resolver(theme)
  const t = {
    bg: read('--surface'),
    bg2: read('--surface-2'),
    bg3: read('--surface-3'),
    border: read('--border'),
    text: read('--text'),
    muted: read('--text-muted'),
    faint: read('--text-faint'),
    accent: read('--accent'),
    accentSoft: read('--accent-soft'),
    ok: read('--ok'),
    warn: read('--warn'),
    bad: read('--bad'),
    info: read('--info'),
  }
  done()
  const hex = (c: string) => c.replace('#', '')
  monaco.editor.defineTheme(monacoThemeName(theme), {
    base: theme === 'dark' ? 'vs-dark' : 'vs',
    inherit: true,
    rules: [
      { token: 'comment', foreground: hex(t.muted), fontStyle: 'italic' },
      { token: 'string', foreground: hex(t.ok) },
      { token: 'number', foreground: hex(t.warn) },
      { token: 'keyword', foreground: hex(t.accent) },
      { token: 'type.identifier', foreground: hex(t.info) },
    ],
    colors: {
      'editor.background': t.bg,
      'editor.foreground': t.text,
      'editorLineNumber.foreground': t.faint,
      'editorLineNumber.activeForeground': t.text,
      'editor.lineHighlightBackground': t.bg2,
      'editor.selectionBackground': t.accentSoft,
      'editorCursor.foreground': t.accent,
      'editorGutter.background': t.bg,
      'editorWidget.background': t.bg2,
      'editorWidget.border': t.border,
      'editorHoverWidget.background': t.bg2,
      'editorHoverWidget.border': t.border,
      'editorSuggestWidget.background': t.bg2,
      'editorSuggestWidget.border': t.border,
      'editorOverviewRuler.border': t.border,
      'editorError.foreground': t.bad,
      'editorWarning.foreground': t.warn,
      'diffEditor.insertedTextBackground': `${t.ok}33`,
      'diffEditor.removedTextBackground': `${t.bad}33`,
      'diffEditor.insertedLineBackground': `${t.ok}1f`,
      'diffEditor.removedLineBackground': `${t.bad}1f`,
      'scrollbarSlider.background': `${t.bg3}cc`,
      focusBorder: t.accent,
    },
  })
  return monacoThemeName(theme)
}

const colors = new Map<string, string>()

/**
 * Token colours as CSS values, for the decorations' overview-ruler colours (which Monaco takes as strings).
 * Cached: resolving one forces a style recalculation of the whole page, too slow to repeat on every keystroke.
 */
export function tokenColor(token: string, theme: Theme): string {
  const key = `${theme}:${token}`
  let c = colors.get(key)
  if (c === undefined) {
    const { read, done } = resolver(theme)
    c = read(token)
    done()
    colors.set(key, c)
  }
  return c
}
