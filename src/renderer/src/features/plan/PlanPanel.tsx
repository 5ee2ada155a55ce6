import { ArrowLeft, FileDiff, Loader2, Maximize2, Minimize2, Save } from 'lucide-react'
import { useCallback, useEffect, useRef, useState } from 'react'
import { errorMessage } from '../../app/queries'
import { shortcutLabel } from '../../app/shortcuts'
import { Banner, Button, cx, IconButton } from '../../ui'
import { useRunning } from '../../app/projectQueries'
import { PlanDiff } from './PlanDiff'
import { PlanEditor } from './PlanEditor'
import { usePlanUi } from './planUi'
import { usePlanFile } from './queries'
import './plan.css'

interface SaveState {
  disabledReason: string | null
  saving: boolean
}

/**
 * The Plan tab (issue 14): the editor, or the plan diff review, in the side panel or across the whole workspace.
 * The editor stays mounted under the diff, so switching views never loses unsaved edits.
 */
export function PlanPanel({ projectId }: { projectId: number }) {
  const disk = usePlanFile(projectId)
  const liveRunning = useRunning(projectId)
  const running = liveRunning || (disk.data?.taskRunning ?? false)
  const view = usePlanUi((s) => s.view)
  const setView = usePlanUi((s) => s.setView)
  const fullWidth = usePlanUi((s) => s.fullWidth)
  const setFullWidth = usePlanUi((s) => s.setFullWidth)
  const [saveState, setSaveState] = useState<SaveState | null>(null)
  const onSaveState = useCallback((s: SaveState) => setSaveState(s), [])
  const saveActionRef = useRef<(() => void) | null>(null)

  // Esc leaves the full-width mode (when no dialog or widget has taken it first).
  useEffect(() => {
    if (!fullWidth) return
    const onKey = (e: KeyboardEvent) => {
      if (
        e.key === 'Escape' &&
        !e.defaultPrevented &&
        !document.querySelector('[role="dialog"],[role="alertdialog"]')
      )
        setFullWidth(false)
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [fullWidth, setFullWidth])

  return (
    <div
      className={cx('plan-panel', fullWidth && 'plan-panel-full')}
      data-testid="plan-panel"
      // Esc is this mode's first: the side panel's drawer around it leaves it alone (ProjectPage.tsx).
      data-takes-escape={fullWidth || undefined}
    >
      <div className="plan-toolbar">
        {view === 'editor' ? (
          <>
            <code className="plan-path" title={disk.data?.path}>
              .ralph/plan.tsx
            </code>
            <Button size="sm" icon={<FileDiff size={13} aria-hidden />} onClick={() => setView('diff')}>
              Plan diff
            </Button>
          </>
        ) : (
          <Button
            size="sm"
            variant="ghost"
            icon={<ArrowLeft size={13} aria-hidden />}
            onClick={() => setView('editor')}
          >
            Back to the editor
          </Button>
        )}
        <span className="plan-toolbar-spacer" />
        <Button
          size="sm"
          variant="primary"
          icon={
            saveState?.saving ? (
              <Loader2 size={13} className="spin" aria-hidden />
            ) : (
              <Save size={13} aria-hidden />
            )
          }
          disabledReason={saveState ? saveState.disabledReason : 'The plan is still loading.'}
          aria-keyshortcuts="Control+S Meta+S"
          title={saveState?.disabledReason ? undefined : `Save (${shortcutLabel('S')})`}
          onClick={() => saveActionRef.current?.()}
        >
          Save
        </Button>
        <IconButton
          size="sm"
          label={fullWidth ? 'Exit full width' : 'Full width'}
          icon={fullWidth ? <Minimize2 size={14} /> : <Maximize2 size={14} />}
          onClick={() => setFullWidth(!fullWidth)}
        />
      </div>
      {disk.error ? (
        <Banner tone="error">Could not read the plan: {errorMessage(disk.error)}</Banner>
      ) : !disk.data ? (
        <p className="muted plan-pane-note" role="status">
          Reading .ralph/plan.tsx…
        </p>
      ) : (
        <>
          {!disk.data.exists ? (
            <Banner tone="info" className="plan-banner">
              This project has no plan yet: the first task writes one, or write it here and Save.
            </Banner>
          ) : null}
          <div className="plan-view" hidden={view !== 'editor'}>
            <PlanEditor
              projectId={projectId}
              disk={disk.data}
              running={running}
              onSaveState={onSaveState}
              saveActionRef={saveActionRef}
            />
          </div>
          {view === 'diff' ? <PlanDiff projectId={projectId} /> : null}
        </>
      )}
    </div>
  )
}
