import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it, vi } from 'vitest'
import { Button, IconButton } from './Button'
import { TooltipProvider } from './Tooltip'

const renderUi = (ui: React.ReactNode) => render(<TooltipProvider delayDuration={0}>{ui}</TooltipProvider>)

describe('Button', () => {
  it('a button disabled for a reason stays reachable, does nothing, and says why', async () => {
    const onClick = vi.fn()
    renderUi(
      <Button onClick={onClick} disabledReason="The timeline arrives with issue 13.">
        Compare
      </Button>,
    )
    const button = screen.getByRole('button', { name: 'Compare' })
    expect(button).toHaveAttribute('aria-disabled', 'true')

    await userEvent.tab()
    expect(button).toHaveFocus()
    expect(await screen.findByRole('tooltip')).toHaveTextContent('The timeline arrives with issue 13.')
    expect(button).toHaveAccessibleDescription('The timeline arrives with issue 13.')

    await userEvent.click(button)
    await userEvent.keyboard('{Enter}')
    expect(onClick).not.toHaveBeenCalled()
  })

  it('an icon button is named by its label, which is also its tooltip', async () => {
    const onClick = vi.fn()
    renderUi(<IconButton label="Hide side panel" shortcut="Ctrl+B" icon={<svg />} onClick={onClick} />)
    const button = screen.getByRole('button', { name: 'Hide side panel' })
    await userEvent.hover(button)
    expect(await screen.findByRole('tooltip')).toHaveTextContent('Hide side panelCtrl+B')
    await userEvent.click(button)
    expect(onClick).toHaveBeenCalledOnce()
  })

  it('is a plain button unless told otherwise, so it never submits a form by accident', () => {
    renderUi(<Button>Test connection</Button>)
    expect(screen.getByRole('button')).toHaveAttribute('type', 'button')
  })
})
