// The heavy part of Monaco, in its own lazily loaded chunk (DESIGN.md §13, §15): the editor itself and its
// workers are bundled locally and never fetched from a CDN; @monaco-editor/react is pointed at this copy.
import { loader } from '@monaco-editor/react'
import * as monaco from 'monaco-editor'
import EditorWorker from 'monaco-editor/editor/editor.worker?worker'
import TsWorker from 'monaco-editor/languages/features/typescript/ts.worker?worker'

self.MonacoEnvironment = {
  getWorker: (_id: string, label: string) =>
    label === 'typescript' || label === 'javascript' ? new TsWorker() : new EditorWorker(),
}
loader.config({ monaco })

export { monaco }

/** What the code editor and the diff editor share: fitted to their box, no minimap, 13px, no scrolling past the end. */
export const editorLook = {
  automaticLayout: true,
  minimap: { enabled: false },
  fontSize: 13,
  scrollBeyondLastLine: false,
} satisfies monaco.editor.IEditorOptions
