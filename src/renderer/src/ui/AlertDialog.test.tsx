import { act, render, screen } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { ConfirmDialog } from './AlertDialog'

describe('ConfirmDialog', () => {
  it('confirms once for two clicks before the confirmed call settles', async () => {
    let settle: () => void = () => undefined
    const onConfirm = vi.fn(() => new Promise<void>((resolve) => (settle = resolve)))
    render(
      <ConfirmDialog
        open
        onOpenChange={() => undefined}
        title="Forget this project?"
        description="Its files stay."
        confirmLabel="Forget"
        onConfirm={onConfirm}
      />,
    )
    const confirm = screen.getByRole('button', { name: 'Forget' })
    act(() => {
      confirm.click()
      confirm.click()
    })
    expect(onConfirm).toHaveBeenCalledOnce()
    await act(async () => settle())
    expect(confirm).toBeEnabled()
  })
})
