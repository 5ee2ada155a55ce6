import { screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { ChatMessageDto } from '../../../../shared/api/chat'
import { renderWithProviders } from '../../test/render'
import { MessageItem } from './MessageItem'
import { message } from './testData'

/** An Ask answer with `text`, and the usage recorded with it (none for one recorded before usage was). */
const renderAnswer = (text: string, usage?: ChatMessageDto['usage']) =>
  renderWithProviders(
    <MessageItem
      projectId={1}
      message={message({ kind: 'answer', mode: null, text, ...(usage ? { usage } : {}) })}
    />,
  )

describe('an Ask answer', () => {
  it('shows its markdown and what it cost', () => {
    renderAnswer('The menu has **two** drinks:\n\n- Moonlit Calm\n- Deep Rest', {
      usd: 0.0042,
      inputTokens: 2400,
      outputTokens: 180,
      calls: 2,
      priced: true,
    })
    expect(screen.getByText('two').tagName).toBe('STRONG')
    expect(screen.getByRole('list')).toHaveTextContent('Moonlit CalmDeep Rest')
    expect(screen.getByTestId('answer-usage')).toHaveTextContent('2.6k tokens · $0.0042 · 2 model calls')
  })

  it("says how much of an answer's input the prompt cache served", () => {
    renderAnswer('Yes.', {
      usd: 0.001,
      inputTokens: 2000,
      cacheReadTokens: 1500,
      outputTokens: 100,
      calls: 2,
      priced: true,
    })
    expect(screen.getByTestId('answer-usage')).toHaveTextContent(
      '2.1k tokens (cached 75%) · $0.0010 · 2 model calls',
    )
  })

  it('says "price unknown" for a model the price table lacks, and nothing for an answer recorded before usage was', () => {
    const { unmount } = renderAnswer('Yes.', {
      usd: 0,
      inputTokens: 10,
      outputTokens: 5,
      calls: 1,
      priced: false,
    })
    expect(screen.getByTestId('answer-usage')).toHaveTextContent('15 tokens · price unknown · 1 model call')
    unmount()
    renderAnswer('Yes.')
    expect(screen.queryByTestId('answer-usage')).toBeNull()
  })
})
