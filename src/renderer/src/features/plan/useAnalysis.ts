import { useEffect, useRef, useState } from 'react'
import type { PlanAnalysis } from '../../../../shared/api/plan'
import { useClient } from '../../app/ClientProvider'
import { errorMessage } from '../../app/queries'

export const ANALYZE_DEBOUNCE_MS = 300

const same = <T>(a: T | undefined, b: T): T =>
  a !== undefined && JSON.stringify(a) === JSON.stringify(b) ? a : b

/**
 * Most keystrokes change neither the findings, the markers nor the outline: keeping the previous objects lets the
 * memoised lists and the editor's decorations skip work that would redo the same thing.
 */
function keepUnchanged(prev: PlanAnalysis | null, next: PlanAnalysis): PlanAnalysis {
  if (!prev) return next
  return {
    ...next,
    findings: same(prev.findings, next.findings),
    markers: same(prev.markers, next.markers),
    outline: same(prev.outline, next.outline),
  }
}

/**
 * Validation as you type: the buffer is analysed (findings, marker hints, outline) once typing pauses; a newer
 * buffer aborts the request still in flight through the client's AbortSignal, so a stale answer never lands.
 * A text that comes from disk (`version` changed: opened, reloaded, the loop wrote it) is analysed at once, with no
 * typing to wait for. `performance` marks time each round (the UI benchmark reads them).
 */
export function useAnalysis(projectId: number, text: string | null, version: string | null) {
  const client = useClient()
  const [state, setState] = useState<{
    result: PlanAnalysis | null
    error: string | null
    text: string | null
  }>({ result: null, error: null, text: null })
  const lastVersion = useRef<string | null>(null)
  useEffect(() => {
    if (text === null) return
    const fromDisk = version !== lastVersion.current
    lastVersion.current = version
    const controller = new AbortController()
    const timer = setTimeout(
      () => {
        performance.mark('plan-analyze-start')
        client
          .call('plan.analyze', { projectId, text }, { signal: controller.signal })
          .then((result) =>
            setState((prev) => ({ result: keepUnchanged(prev.result, result), error: null, text })),
          )
          .catch((err: unknown) => {
            if (!controller.signal.aborted) setState((s) => ({ ...s, error: errorMessage(err) }))
          })
      },
      fromDisk ? 0 : ANALYZE_DEBOUNCE_MS,
    )
    return () => {
      clearTimeout(timer)
      controller.abort()
    }
  }, [client, projectId, text, version])
  return { ...state, pending: text !== state.text }
}
