// Monaco for every feature (plan editor, timeline diffs): a light entry that loads the editor's own chunk on first
// use. Import types from here; the editor code arrives through React.lazy.
import { Loader2 } from 'lucide-react'
import { lazy, Suspense } from 'react'
import type { CodeEditorProps, DiffViewProps } from './types'
import './monaco.css'

export type {
  CodeEditorInstance,
  CodeEditorProps,
  DiffEditorInstance,
  DiffViewProps,
  MonacoApi,
} from './types'

const CodeEditorImpl = lazy(() => import('./CodeEditorImpl'))
const DiffEditorImpl = lazy(() => import('./DiffEditorImpl'))

/** Starts fetching Monaco's chunk early (e.g. when the Plan tab is hovered), so opening it is instant. */
export const preloadMonaco = () => import('./setup')

function EditorLoading() {
  return (
    <div className="monaco-loading" role="status">
      <Loader2 size={16} className="spin" aria-hidden /> Loading the editor…
    </div>
  )
}

export function CodeEditor(props: CodeEditorProps) {
  return (
    <Suspense fallback={<EditorLoading />}>
      <CodeEditorImpl {...props} />
    </Suspense>
  )
}

export function DiffView(props: DiffViewProps) {
  return (
    <Suspense fallback={<EditorLoading />}>
      <DiffEditorImpl {...props} />
    </Suspense>
  )
}
