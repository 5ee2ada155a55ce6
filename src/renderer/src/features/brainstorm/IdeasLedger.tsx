import { forwardRef, type HTMLAttributes } from 'react'
import { Virtuoso } from 'react-virtuoso'
import { Banner } from '../../ui'
import { errorMessage } from '../../app/queries'
import { useIdeas } from './queries'

/** Virtuoso's list and item elements, as a `list` "Ideas" of `listitem`s. */
const List = forwardRef<HTMLDivElement, HTMLAttributes<HTMLDivElement>>(function List(props, ref) {
  return <div {...props} ref={ref} role="list" aria-label="Ideas" />
})
const Item = (props: HTMLAttributes<HTMLDivElement>) => <div {...props} role="none" />

/**
 * The live ledger: every idea the harness kept, numbered I001 … in seed 004's format. Virtualized (a session
 * reaches 100+ ideas) and following new ideas only when already at the bottom.
 */
export function IdeasLedger({ projectId }: { projectId: number }) {
  const ideas = useIdeas(projectId)
  const list = ideas.data?.ideas ?? []
  if (ideas.error) return <Banner tone="error">{errorMessage(ideas.error)}</Banner>
  if (!list.length) {
    return (
      <div className="bs-ledger-empty">
        <div role="list" aria-label="Ideas" />
        <p className="muted">
          No ideas yet. Each idea you state is numbered here (I001 …) in your own words; the facilitator never
          adds its own.
        </p>
      </div>
    )
  }
  return (
    <Virtuoso
      className="bs-ledger"
      // Virtuoso sizes its root inline: the height must be inline too.
      style={{ height: '46vh' }}
      data={list}
      computeItemKey={(_, idea) => idea.id}
      components={{ List, Item }}
      followOutput={(atBottom) => (atBottom ? 'smooth' : false)}
      initialTopMostItemIndex={Math.max(0, list.length - 1)}
      itemContent={(_, idea) => (
        <div role="listitem" aria-label={`${idea.id} ${idea.title}`} className="bs-idea">
          <div className="bs-idea-head">
            <span className="mono bs-idea-id">{idea.id}</span>
            <span className="badge tone-neutral">{idea.domain}</span>
            <span className="bs-idea-title">{idea.title}</span>
          </div>
          {idea.description ? <p className="bs-idea-desc">{idea.description}</p> : null}
          {idea.novelty ? <p className="bs-idea-novelty muted">Novelty: {idea.novelty}</p> : null}
        </div>
      )}
    />
  )
}
