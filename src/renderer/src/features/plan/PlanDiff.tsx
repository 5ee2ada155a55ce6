import { useEffect, useMemo, useRef } from 'react'
import type { PlanCompare } from '../../../../shared/api/plan'
import { errorMessage } from '../../app/queries'
import { Banner, Segmented } from '../../ui'
import { DiffView, type DiffEditorInstance } from '../../ui/monaco'
import { Implementation } from './Implementation'
import { usePlanUi, type DiffMode } from './planUi'
import { usePlanCompare, useSnapshotTags } from './queries'
import { SectionChanges } from './SectionChanges'

/** The diff's two views: the plan's structure (screens, sections) or its text. */
const diffModes: readonly (readonly [DiffMode, string])[] = [
  ['structure', 'Structure'],
  ['text', 'Text'],
]

export const WORKING = 'working'

/** The "Plan diff" review: From/To, the structural view or Monaco's text diff, and plan against implementation. */
export function PlanDiff({ projectId }: { projectId: number }) {
  const range = usePlanUi((s) => s.range)
  const setRange = usePlanUi((s) => s.setRange)
  const mode = usePlanUi((s) => s.diffMode)
  const setMode = usePlanUi((s) => s.setDiffMode)
  const tags = useSnapshotTags(projectId)
  const known = useMemo(() => new Set(tags.data?.items.map((s) => s.tag) ?? []), [tags.data])
  // A task card asks for task-N-post; while the task has none (it is running, or failed), compare with the
  // working copy instead.
  const effective =
    range && tags.data && range.to !== WORKING && !known.has(range.to) ? { ...range, to: WORKING } : range
  // A chosen range waits for the tag list (to know whether its To exists); the default needs none.
  const compare = usePlanCompare(projectId, effective, !range || !!tags.data || !!tags.error)
  const shown = compare.data ? { from: compare.data.from, to: compare.data.to } : effective

  const choose = (side: 'from' | 'to', value: string) => {
    const base = shown ?? { from: WORKING, to: WORKING }
    setRange({ ...base, [side]: value })
  }

  return (
    <div className="plan-diff">
      <div className="plan-diff-controls">
        {(['from', 'to'] as const).map((side) => (
          <label key={side} className="plan-diff-pick">
            <span>{side === 'from' ? 'From' : 'To'}</span>
            <select
              aria-label={side === 'from' ? 'From' : 'To'}
              value={shown?.[side] ?? ''}
              onChange={(e) => choose(side, e.target.value)}
            >
              {shown?.[side] === undefined ? <option value="">…</option> : null}
              <option value={WORKING}>Working copy</option>
              {shown && shown[side] !== WORKING && !known.has(shown[side]) ? (
                <option value={shown[side]}>{shown[side]}</option>
              ) : null}
              {tags.data?.items.map((s) => (
                <option key={s.tag} value={s.tag}>
                  {s.tag}
                </option>
              ))}
            </select>
          </label>
        ))}
        <Segmented
          label="Diff view"
          className="segmented"
          options={diffModes}
          value={mode}
          onChange={setMode}
        />
      </div>
      {compare.error ? (
        <Banner tone="error">Could not compare the plans: {errorMessage(compare.error)}</Banner>
      ) : !compare.data ? (
        <p className="muted plan-pane-note" role="status">
          Comparing the plans…
        </p>
      ) : mode === 'structure' ? (
        <StructureView data={compare.data} />
      ) : (
        <TextView data={compare.data} />
      )}
    </div>
  )
}

function StructureView({ data }: { data: PlanCompare }) {
  const reveal = usePlanUi((s) => s.revealInDiff)
  const missing = [data.fromText === null ? data.from : null, data.toText === null ? data.to : null].filter(
    Boolean,
  )
  return (
    <div className="plan-diff-structure">
      {missing.length ? (
        <Banner tone="info">
          No .ralph/plan.tsx in {missing.map((m) => (m === WORKING ? 'the working copy' : m)).join(' or ')}.
        </Banner>
      ) : null}
      <SectionChanges diff={data.diff} onReveal={reveal} />
      <Implementation
        task={data.task}
        sections={data.implementation}
        onReveal={(line) => reveal(line, 'after')}
      />
    </div>
  )
}

function TextView({ data }: { data: PlanCompare }) {
  const reveal = usePlanUi((s) => s.reveal)
  const editor = useRef<DiffEditorInstance | null>(null)
  const apply = () => {
    const e = editor.current
    if (!e || !reveal) return
    const side = reveal.side === 'before' ? e.getOriginalEditor() : e.getModifiedEditor()
    side.revealLineInCenter(reveal.line)
    side.setPosition({ lineNumber: reveal.line, column: 1 })
  }
  useEffect(apply, [reveal])
  return (
    <div className="plan-diff-text" data-testid="plan-diff-text">
      <DiffView
        original={data.fromText ?? ''}
        modified={data.toText ?? ''}
        language="typescript"
        originalPath={`file:///ralph-diff/${data.from}/plan.tsx`}
        modifiedPath={`file:///ralph-diff/${data.to}/plan.tsx`}
        onMount={(e) => {
          editor.current = e
          // The diff is computed after mount; reveal once it is there.
          e.onDidUpdateDiff(apply)
        }}
      />
    </div>
  )
}
