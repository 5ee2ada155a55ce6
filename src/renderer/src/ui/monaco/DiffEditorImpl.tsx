import { DiffEditor } from '@monaco-editor/react'
import { monaco } from './setup'
import { useMonacoTheme } from './useMonacoTheme'
import type { DiffViewProps } from './types'

/** Monaco's side-by-side diff of two texts, read-only unless told otherwise (the timeline reuses it for files). */
export default function DiffEditorImpl({
  original,
  modified,
  language,
  originalPath,
  modifiedPath,
  readOnly = true,
  sideBySide = true,
  onMount,
}: DiffViewProps) {
  const theme = useMonacoTheme(monaco)
  return (
    <DiffEditor
      original={original}
      modified={modified}
      language={language}
      originalModelPath={originalPath}
      modifiedModelPath={modifiedPath}
      theme={theme}
      loading={null}
      onMount={(editor) => onMount?.(editor, monaco)}
      options={{
        readOnly,
        originalEditable: false,
        renderSideBySide: sideBySide,
        automaticLayout: true,
        minimap: { enabled: false },
        fontSize: 13,
        scrollBeyondLastLine: false,
      }}
    />
  )
}
