import { Lock, RefreshCw } from 'lucide-react'
import { useCallback, useEffect, useRef, useState } from 'react'
import type { PlanFile } from '../../../../shared/api/plan'
import { isAppError } from '../../../../shared/errors'
import { errorMessage } from '../../app/queries'
import { useTheme } from '../../app/theme'
import { Banner, Button, ConfirmDialog, Dialog, DialogContent, toast } from '../../ui'
import { CodeEditor, DiffView, type CodeEditorInstance, type MonacoApi } from '../../ui/monaco'
import { Outline } from './Outline'
import { configurePlanLanguage, markerDecorations, planModelPath, setFindings } from './planMonaco'
import { Problems } from './Problems'
import { useSavePlan } from './queries'
import { useAnalysis } from './useAnalysis'
import { usePlanBuffer } from './usePlanBuffer'

const isSaveKey = (e: KeyboardEvent) => (e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's'

/**
 * Monaco on .ralph/plan.tsx with the marker decorations, validation as you type, the Problems list and the
 * Outline; Save (Ctrl/⌘+S) writes atomically. Read-only while a task runs, following the loop's writes.
 */
export function PlanEditor({
  projectId,
  disk,
  running,
  onSaveState,
  saveActionRef,
}: {
  projectId: number
  disk: PlanFile
  running: boolean
  /** Tells the toolbar whether Save can run, and why not. */
  onSaveState(state: { disabledReason: string | null; saving: boolean }): void
  /** Where the toolbar's Save button finds the current save action. */
  saveActionRef: { current: (() => void) | null }
}) {
  const buffer = usePlanBuffer(projectId, disk)
  const analysis = useAnalysis(projectId, buffer.text, buffer.base?.version ?? null)
  const theme = useTheme((s) => s.theme)
  const save = useSavePlan(projectId)
  const [confirm, setConfirm] = useState(false)
  const [showDiff, setShowDiff] = useState(false)
  const editorRef = useRef<{ editor: CodeEditorInstance; monaco: MonacoApi } | null>(null)
  const decorations = useRef<ReturnType<CodeEditorInstance['createDecorationsCollection']> | null>(null)
  const [mounted, setMounted] = useState(0)

  // Decorations and squiggles follow each analysis (and the theme, for the ruler colours); unchanged ones are
  // left as they are (Monaco moves them with the text).
  const applied = useRef({
    markers: null as unknown,
    findings: null as unknown,
    theme: '',
    mounted: 0,
    version: '',
  })
  const version = buffer.base?.version ?? ''
  useEffect(() => {
    const m = editorRef.current
    const result = analysis.result
    if (!m || !result) return
    const last = applied.current
    // A new editor, or a text replaced from disk (which resets what Monaco tracked), gets everything again.
    const fresh = last.mounted !== mounted || last.version !== version
    if (fresh || last.markers !== result.markers || last.theme !== theme) {
      decorations.current ??= m.editor.createDecorationsCollection()
      decorations.current.set(markerDecorations(m.monaco, m.editor, result.markers, theme))
    }
    if (fresh || last.findings !== result.findings) setFindings(m.monaco, m.editor, result.findings)
    applied.current = { markers: result.markers, findings: result.findings, theme, mounted, version }
    if (performance.getEntriesByName('plan-analyze-start').length) {
      performance.measure('plan-analyze', 'plan-analyze-start')
      performance.clearMarks('plan-analyze-start')
    }
  }, [analysis.result, theme, mounted, version])

  const jump = useCallback((line: number, column = 1) => {
    const e = editorRef.current?.editor
    if (!e) return
    e.revealLineInCenter(line)
    e.setPosition({ lineNumber: line, column })
    e.focus()
  }, [])

  const write = useCallback(
    (force: boolean) => {
      const text = buffer.text
      if (text === null) return
      save.mutate(
        { text, baseVersion: buffer.base?.version, force },
        {
          onSuccess: (r) => {
            buffer.saved({ text, version: r.version })
            toast.success('Saved .ralph/plan.tsx')
          },
          onError: (err) => {
            if (isAppError(err, 'invalid-input') && (err.details as { conflict?: boolean })?.conflict) {
              toast.error(
                'The plan changed on disk since you opened it: reload, keep yours, or compare first.',
              )
            } else toast.error(`Could not save the plan: ${errorMessage(err)}`)
          },
        },
      )
    },
    [buffer, save],
  )

  const failures = analysis.result?.findings.filter((f) => f.severity === 'failure') ?? []
  const requestSave = useCallback(() => {
    if (running || !buffer.dirty || save.isPending) return
    // The confirmation names the problems; the loop's phase gate would report them too.
    if (failures.length > 0) setConfirm(true)
    else write(buffer.conflict)
  }, [running, buffer.dirty, buffer.conflict, save.isPending, failures.length, write])

  const disabledReason = running
    ? 'A task is running: the loop owns the plan until it ends.'
    : !buffer.dirty
      ? 'No unsaved changes.'
      : buffer.conflict
        ? 'The file changed on disk: choose Reload or Keep mine first.'
        : null
  // Primitives only: the toolbar re-renders when what it shows changes, not on every keystroke.
  useEffect(() => {
    onSaveState({ disabledReason, saving: save.isPending })
  }, [onSaveState, disabledReason, save.isPending])

  // Ctrl/⌘+S anywhere on the page while the editor is shown (Monaco has its own binding when focused).
  const saveRef = useRef(requestSave)
  useEffect(() => {
    saveRef.current = requestSave
    saveActionRef.current = requestSave
  }, [requestSave, saveActionRef])
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isSaveKey(e)) return
      e.preventDefault()
      saveRef.current()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])

  return (
    <div className="plan-editor">
      {running ? (
        <Banner tone="info" className="plan-banner" data-testid="plan-read-only">
          <Lock size={13} aria-hidden /> A task is running: the plan is read-only and follows the loop’s
          writes.
        </Banner>
      ) : null}
      {buffer.conflict ? (
        <Banner tone="warn" className="plan-banner plan-conflict" role="alert">
          <span>
            <RefreshCw size={13} aria-hidden /> .ralph/plan.tsx changed on disk while you had unsaved edits.
          </span>
          <span className="plan-banner-actions">
            <Button size="sm" onClick={buffer.reload}>
              Reload
            </Button>
            <Button size="sm" onClick={buffer.keepMine}>
              Keep mine
            </Button>
            <Button size="sm" variant="ghost" onClick={() => setShowDiff(true)}>
              See the difference
            </Button>
          </span>
        </Banner>
      ) : null}
      <div className="plan-editor-body">
        <div className="plan-editor-main">
          <div className="plan-monaco" data-testid="plan-monaco">
            {buffer.text !== null ? (
              <CodeEditor
                path={planModelPath(projectId)}
                value={buffer.text}
                language="typescript"
                readOnly={running}
                ariaLabel="Plan editor: .ralph/plan.tsx"
                beforeMount={configurePlanLanguage}
                onChange={buffer.edit}
                onMount={(editor, monaco) => {
                  editorRef.current = { editor, monaco }
                  editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => saveRef.current())
                  setMounted((n) => n + 1)
                  performance.mark('plan-editor-mounted')
                }}
              />
            ) : null}
          </div>
          <Problems findings={analysis.result?.findings ?? null} pending={analysis.pending} onJump={jump} />
          {analysis.error ? <Banner tone="error">Could not check the plan: {analysis.error}</Banner> : null}
        </div>
        <Outline screens={analysis.result?.outline ?? null} onJump={jump} />
      </div>
      <ConfirmDialog
        open={confirm}
        onOpenChange={setConfirm}
        title="Save a plan with problems?"
        tone="primary"
        confirmLabel="Save anyway"
        onConfirm={() => write(buffer.conflict)}
        description={`The plan fails ${failures.length} rule${failures.length === 1 ? '' : 's'}. You can save it anyway; the loop's phase gate will report the same problems.`}
      >
        <ul className="plan-confirm-problems" aria-label="Problems to save with">
          {failures.slice(0, 8).map((f, i) => (
            <li key={i}>
              <code>{f.rule}</code> line {f.line}: {f.message}
            </li>
          ))}
          {failures.length > 8 ? <li className="muted">… and {failures.length - 8} more</li> : null}
        </ul>
      </ConfirmDialog>
      <Dialog open={showDiff} onOpenChange={setShowDiff}>
        <DialogContent
          title="Your edits against the plan on disk"
          description="Left: on disk now. Right: yours."
        >
          <div className="plan-conflict-diff">
            <DiffView original={disk.text} modified={buffer.text ?? ''} language="typescript" />
          </div>
          <div className="dialog-actions">
            <Button
              onClick={() => {
                buffer.reload()
                setShowDiff(false)
              }}
            >
              Reload
            </Button>
            <Button
              variant="primary"
              onClick={() => {
                buffer.keepMine()
                setShowDiff(false)
              }}
            >
              Keep mine
            </Button>
          </div>
        </DialogContent>
      </Dialog>
    </div>
  )
}
