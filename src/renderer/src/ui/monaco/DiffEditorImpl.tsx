import { DiffEditor } from '@monaco-editor/react'
import { useEffect, useRef } from 'react'
import { editorLook, monaco } from './setup'
import { useMonacoTheme } from './useMonacoTheme'
import type { DiffEditorInstance, DiffViewProps } from './types'

/**
 * Monaco's side-by-side diff of two texts, read-only unless told otherwise (the timeline reuses it for files).
 * One editor per pair of paths: another pair mounts a fresh one rather than swapping models in place.
 */
export default function DiffEditorImpl(props: DiffViewProps) {
  return <OneDiff key={`${props.originalPath ?? ''}\n${props.modifiedPath ?? ''}`} {...props} />
}

function OneDiff({
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
  const editor = useRef<DiffEditorInstance | null>(null)
  // @monaco-editor/react disposes the models before the diff editor that still shows them, which Monaco reports
  // as an error ("TextModel got disposed before DiffEditorWidget model got reset"). So it keeps them, and this
  // cleanup, which React runs before the child's, detaches them from the editor and then disposes them.
  useEffect(
    () => () => {
      const models = editor.current?.getModel()
      editor.current?.setModel(null)
      models?.original.dispose()
      models?.modified.dispose()
    },
    [],
  )
  return (
    <DiffEditor
      original={original}
      modified={modified}
      language={language}
      originalModelPath={originalPath}
      modifiedModelPath={modifiedPath}
      keepCurrentOriginalModel
      keepCurrentModifiedModel
      theme={theme}
      loading={null}
      onMount={(instance) => {
        editor.current = instance
        onMount?.(instance, monaco)
      }}
      options={{
        readOnly,
        originalEditable: false,
        renderSideBySide: sideBySide,
        ...editorLook,
      }}
    />
  )
}
