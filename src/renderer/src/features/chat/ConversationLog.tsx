import { useEffect, useMemo, useRef, useState } from 'react'
import { Virtuoso, type VirtuosoHandle } from 'react-virtuoso'
import type { ChatMessageDto } from '../../../../shared/api/chat'
import { answersOf, foldAnswers } from './cardAnswers'
import { nextFirstIndex } from './firstItemIndex'
import { MessageItem } from './MessageItem'

/**
 * The messages, oldest at the top, virtualized. It opens at the bottom, and follows new content when the reader
 * is at the bottom, and from opening or the user's send until they scroll up (so the newest rows are always shown,
 * however slowly the list measures them); it asks for older pages as the top comes into view.
 */
export function ConversationLog({
  messages,
  projectId,
  hasOlder,
  loadOlder,
  scrollSignal,
}: {
  /** Newest first, as history pages come. */
  messages: ChatMessageDto[]
  projectId: number
  hasOlder: boolean
  loadOlder(): void
  /** Changes when the user sends: the log jumps to the bottom whatever the reader was doing. */
  scrollSignal: number
}) {
  // Oldest first, a task's answers folded into its card (they show under its question, not after the card).
  const folded = useMemo(() => foldAnswers([...messages].reverse()), [messages])
  const items = folded.items
  // The index of the top item, carried from render to render (see nextFirstIndex).
  const [top, setTop] = useState(() => ({ items, first: nextFirstIndex([], 0, items) }))
  if (top.items !== items) setTop({ items, first: nextFirstIndex(top.items, top.first, items) })
  const virtuoso = useRef<VirtuosoHandle>(null)
  const atBottom = useRef(true)
  // Set on opening and by a send, cleared when the reader scrolls up: only then may rows arrive out of sight (a
  // card measured taller than estimated would otherwise leave the newest rows below the view).
  const afterSend = useRef(true)
  const scroller = useRef<HTMLElement | null>(null)
  // Virtuoso says "at the bottom" a moment after the reader has left it: a reader now more than half a view away
  // from the bottom is reading, and a card measured meanwhile must not pull the list back down.
  const away = () => {
    const el = scroller.current
    return !!el && el.scrollHeight - el.scrollTop - el.clientHeight > el.clientHeight / 2
  }
  const follows = () => afterSend.current || (atBottom.current && !away())
  const toBottom = () => virtuoso.current?.scrollToIndex({ index: 'LAST', align: 'end' })

  useEffect(() => {
    if (!scrollSignal) return
    afterSend.current = true
    toBottom()
  }, [scrollSignal])
  useEffect(() => {
    if (afterSend.current) toBottom()
  }, [items])

  return (
    <Virtuoso
      ref={virtuoso}
      className="chat-scroller"
      data={items}
      firstItemIndex={top.items === items ? top.first : nextFirstIndex(top.items, top.first, items)}
      initialTopMostItemIndex={{ index: Math.max(0, items.length - 1), align: 'end' }}
      computeItemKey={(_, m) => m.id}
      startReached={() => (hasOlder ? loadOlder() : undefined)}
      followOutput={(bottom) => (bottom || afterSend.current ? 'auto' : false)}
      atBottomStateChange={(bottom) => (atBottom.current = bottom)}
      atBottomThreshold={48}
      scrollerRef={(el) => {
        if (el instanceof HTMLElement) scroller.current = el
        watchScrollUp(el, () => (afterSend.current = false))
      }}
      // A running card grows without a new item: keep it in view if the reader was following.
      totalListHeightChanged={() => {
        if (follows()) toBottom()
      }}
      itemContent={(_, message) => (
        <div className="chat-item">
          <MessageItem message={message} projectId={projectId} answers={answersOf(folded, message.id)} />
        </div>
      )}
    />
  )
}

/**
 * Calls `onUp` when the scroller's position moves up, which only the reader does: new rows, a growing card and
 * older pages (kept in place by Virtuoso) all move it down or leave it.
 */
function watchScrollUp(el: HTMLElement | Window | null, onUp: () => void): void {
  if (!(el instanceof HTMLElement) || el.dataset.watchScrollUp) return
  el.dataset.watchScrollUp = '1'
  let last = el.scrollTop
  el.addEventListener(
    'scroll',
    () => {
      if (el.scrollTop < last - 4) onUp()
      last = el.scrollTop
    },
    { passive: true },
  )
}
