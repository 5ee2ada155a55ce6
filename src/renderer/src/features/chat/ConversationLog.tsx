import { useEffect, useMemo, useRef, useState } from 'react'
import { Virtuoso, type VirtuosoHandle } from 'react-virtuoso'
import type { ChatMessageDto } from '../../../../shared/api/chat'
import { nextFirstIndex } from './firstItemIndex'
import { MessageItem } from './MessageItem'

/**
 * The messages, oldest at the top, virtualized. It follows new content only when the reader is already at the
 * bottom, and asks for older pages as the top comes into view.
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
  const items = useMemo(() => [...messages].reverse(), [messages])
  // The index of the top item, carried from render to render (see nextFirstIndex).
  const [top, setTop] = useState(() => ({ items, first: nextFirstIndex([], 0, items) }))
  if (top.items !== items) setTop({ items, first: nextFirstIndex(top.items, top.first, items) })
  const virtuoso = useRef<VirtuosoHandle>(null)
  const atBottom = useRef(true)

  useEffect(() => {
    if (scrollSignal) virtuoso.current?.scrollToIndex({ index: 'LAST', align: 'end' })
  }, [scrollSignal])

  return (
    <Virtuoso
      ref={virtuoso}
      className="chat-scroller"
      data={items}
      firstItemIndex={top.items === items ? top.first : nextFirstIndex(top.items, top.first, items)}
      initialTopMostItemIndex={Math.max(0, items.length - 1)}
      computeItemKey={(_, m) => m.id}
      startReached={() => (hasOlder ? loadOlder() : undefined)}
      followOutput={(bottom) => (bottom ? 'auto' : false)}
      atBottomStateChange={(bottom) => (atBottom.current = bottom)}
      atBottomThreshold={48}
      // A running card grows without a new item: keep it in view if the reader was at the bottom.
      totalListHeightChanged={() => {
        if (atBottom.current) virtuoso.current?.scrollToIndex({ index: 'LAST', align: 'end' })
      }}
      itemContent={(_, message) => (
        <div className="chat-item">
          <MessageItem message={message} projectId={projectId} />
        </div>
      )}
    />
  )
}
