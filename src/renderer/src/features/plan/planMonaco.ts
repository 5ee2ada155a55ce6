// What the plan editor tells Monaco: the shipped typings as an extra library (hover and completion know every
// component and prop), the marker decorations with their hovers, and the validator's findings as model markers.
import planTypings from '../../../../../resources/plan/plan-components.d.ts?raw'
import type { PlanAnalysis } from '../../../../shared/api/plan'
import type { Theme } from '../../app/theme'
import type { CodeEditorInstance, MonacoApi } from '../../ui/monaco'
import { tokenColor } from '../../ui/monaco/theme'
import { markerClass, markerToken } from './markerStyles'

export const MARKER_OWNER = 'ralph-plan'
const TYPINGS_PATH = 'file:///node_modules/@types/ralph-plan/index.d.ts'

let configured = false

/** Once per page: TSX as the plan language wants it (`jsx: preserve`, no React types) plus the typings. */
export function configurePlanLanguage(monaco: MonacoApi): void {
  if (configured) return
  configured = true
  const ts = monaco.typescript
  ts.typescriptDefaults.setCompilerOptions({
    jsx: ts.JsxEmit.Preserve,
    target: ts.ScriptTarget.ESNext,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.NodeJs,
    allowNonTsExtensions: true,
    noEmit: true,
    strict: true,
    types: [],
    lib: ['es2022'],
  })
  ts.typescriptDefaults.addExtraLib(planTypings, TYPINGS_PATH)
}

export const planModelPath = (projectId: number) => `file:///ralph/project-${projectId}/.ralph/plan.tsx`

/** Marker lines: a class by kind on the text (the names tests rely on), a line tint, a gutter glyph and a ruler mark. */
export function markerDecorations(
  monaco: MonacoApi,
  editor: CodeEditorInstance,
  markers: PlanAnalysis['markers'],
  theme: Theme,
) {
  const model = editor.getModel()
  if (!model) return []
  return markers
    .filter((m) => m.line >= 1 && m.line <= model.getLineCount())
    .map((m) => {
      const cls = markerClass[m.kind]
      const first = Math.max(1, model.getLineFirstNonWhitespaceColumn(m.line))
      return {
        range: new monaco.Range(m.line, first, m.line, model.getLineMaxColumn(m.line)),
        options: {
          inlineClassName: cls,
          className: `plan-marker-line ${cls}-line`,
          isWholeLine: false,
          glyphMarginClassName: `plan-glyph ${cls}-glyph`,
          glyphMarginHoverMessage: { value: m.message },
          hoverMessage: { value: m.message },
          overviewRuler: {
            color: tokenColor(markerToken[m.kind], theme),
            position: monaco.editor.OverviewRulerLane.Left,
          },
          stickiness: monaco.editor.TrackedRangeStickiness.NeverGrowsWhenTypingAtEdges,
        },
      }
    })
}

/** The validator's findings as squiggles, each carrying its rule id as the marker code. */
export function setFindings(
  monaco: MonacoApi,
  editor: CodeEditorInstance,
  findings: PlanAnalysis['findings'],
) {
  const model = editor.getModel()
  if (!model) return
  const last = model.getLineCount()
  monaco.editor.setModelMarkers(
    model,
    MARKER_OWNER,
    findings.map((f) => {
      const line = Math.min(Math.max(1, f.line), last)
      const endLine = Math.min(Math.max(line, f.endLine ?? line), last)
      const endColumn =
        f.endColumn !== undefined && (f.endLine ?? line) <= last
          ? f.endColumn
          : model.getLineMaxColumn(endLine)
      return {
        startLineNumber: line,
        startColumn: Math.max(1, f.column),
        endLineNumber: endLine,
        endColumn: Math.max(endColumn, f.column + 1),
        message: f.message,
        code: f.rule,
        source: 'plan',
        severity: f.severity === 'failure' ? monaco.MarkerSeverity.Error : monaco.MarkerSeverity.Warning,
      }
    }),
  )
}
