import Editor, { type OnMount } from '@monaco-editor/react'
import type * as Monaco from 'monaco-editor'
import { editorLook, monaco } from './setup'
import { useMonacoTheme } from './useMonacoTheme'
import type { CodeEditorProps } from './types'

/** One Monaco editor on a model identified by `path` (so markers and decorations attach to a stable model). */
export default function CodeEditorImpl({
  path,
  value,
  language,
  readOnly,
  ariaLabel,
  options,
  onChange,
  onMount,
  beforeMount,
}: CodeEditorProps) {
  const theme = useMonacoTheme(monaco)
  const mount: OnMount = (editor) => onMount?.(editor, monaco)
  return (
    <Editor
      path={path}
      value={value}
      language={language}
      theme={theme}
      loading={null}
      beforeMount={() => beforeMount?.(monaco)}
      onMount={mount}
      onChange={(v) => onChange?.(v ?? '')}
      options={
        {
          readOnly,
          ariaLabel,
          ...editorLook,
          fontFamily: 'ui-monospace, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace',
          glyphMargin: true,
          lineNumbersMinChars: 3,
          renderValidationDecorations: 'on',
          tabSize: 2,
          ...options,
        } satisfies Monaco.editor.IStandaloneEditorConstructionOptions
      }
    />
  )
}
