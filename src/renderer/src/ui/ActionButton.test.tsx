import { act, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it, vi } from 'vitest'
import { ActionButton } from './ActionButton'
import { TooltipProvider } from './Tooltip'

const renderUi = (ui: React.ReactNode) => render(<TooltipProvider delayDuration={0}>{ui}</TooltipProvider>)

function deferred() {
  let resolve: () => void = () => undefined
  let reject: (err: Error) => void = () => undefined
  const promise = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

describe('ActionButton', () => {
  it('acts once for a double click and is busy until the action settles', async () => {
    const pending = deferred()
    const onAction = vi.fn(() => pending.promise)
    renderUi(<ActionButton onAction={onAction}>Roll back</ActionButton>)
    const button = screen.getByRole('button', { name: 'Roll back' })
    await userEvent.dblClick(button)
    expect(onAction).toHaveBeenCalledOnce()
    expect(button).toBeDisabled()
    expect(button).toHaveAttribute('aria-busy', 'true')
    await act(async () => pending.resolve())
    expect(button).toBeEnabled()
    await userEvent.click(button)
    expect(onAction).toHaveBeenCalledTimes(2)
  })

  it('guards two clicks in the same frame, before React re-renders', async () => {
    const pending = deferred()
    const onAction = vi.fn(() => pending.promise)
    renderUi(<ActionButton onAction={onAction}>Save snapshot</ActionButton>)
    const button = screen.getByRole('button', { name: 'Save snapshot' })
    act(() => {
      button.click()
      button.click()
    })
    expect(onAction).toHaveBeenCalledOnce()
    await act(async () => pending.resolve())
  })

  it('comes back after a failed action, which reports its own error', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const pending = deferred()
    renderUi(<ActionButton onAction={() => pending.promise}>Accept</ActionButton>)
    const button = screen.getByRole('button', { name: 'Accept' })
    await userEvent.click(button)
    await act(async () => pending.reject(new Error('store locked')))
    expect(button).toBeEnabled()
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('an action failed'), expect.any(Error))
    warn.mockRestore()
  })
})
