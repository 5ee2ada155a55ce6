import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { TooltipProvider } from '../../ui'
import { McpCallMark } from './McpCallMark'

describe('McpCallMark', () => {
  it('marks an MCP call as outside the snapshot, with why on focus', async () => {
    render(
      <TooltipProvider delayDuration={0}>
        <McpCallMark toolName="mcp__everything__echo" />
      </TooltipProvider>,
    )
    const mark = screen.getByText('outside the snapshot')
    expect(mark).toHaveTextContent('outside the snapshot: A rollback cannot undo what an MCP server did')
    await userEvent.tab()
    expect(mark).toHaveFocus()
    expect(await screen.findByRole('tooltip')).toHaveTextContent(
      'A rollback cannot undo what an MCP server did',
    )
  })

  it("draws nothing for Ralph's own tools", () => {
    const { container } = render(<McpCallMark toolName="write_file" />)
    expect(container).toBeEmptyDOMElement()
  })

  it('can sit inside a button without taking focus', () => {
    render(
      <button type="button">
        <McpCallMark toolName="mcp__gh__create_issue" focusable={false} />
      </button>,
    )
    expect(screen.getByText('outside the snapshot')).not.toHaveAttribute('tabindex')
  })
})
