/**
 * A dialog's onOpenChange around the mutation it runs: it stays open while the mutation is pending, and each
 * closing clears the mutation's last error (each opening starts without it).
 */
export const whileNotPending =
  (mutation: { isPending: boolean; reset(): void }, onOpenChange: (open: boolean) => void) =>
  (next: boolean): void => {
    if (mutation.isPending) return
    if (!next) mutation.reset()
    onOpenChange(next)
  }
