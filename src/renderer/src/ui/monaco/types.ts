import type * as Monaco from 'monaco-editor'

export type MonacoApi = typeof Monaco
export type CodeEditorInstance = Monaco.editor.IStandaloneCodeEditor
export type DiffEditorInstance = Monaco.editor.IStandaloneDiffEditor

export interface CodeEditorProps {
  /** The model's URI path (e.g. `file:///project-3/.ralph/plan.tsx`): one model per file, kept across renders. */
  path: string
  value: string
  language: string
  readOnly?: boolean
  ariaLabel?: string
  options?: Monaco.editor.IStandaloneEditorConstructionOptions
  onChange?(value: string): void
  /** Before the first model exists: register languages, extra libs, compiler options. */
  beforeMount?(monaco: MonacoApi): void
  onMount?(editor: CodeEditorInstance, monaco: MonacoApi): void
}

export interface DiffViewProps {
  original: string
  modified: string
  language: string
  originalPath?: string
  modifiedPath?: string
  readOnly?: boolean
  sideBySide?: boolean
  onMount?(editor: DiffEditorInstance, monaco: MonacoApi): void
}
