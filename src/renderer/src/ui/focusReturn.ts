/**
 * Where keyboard focus goes back to when something that took it (a dialog, a page) goes away. The element that had
 * focus is remembered with how to find it again: a dialog's work (a rollback, a save) often re-renders the list
 * its opener sat in, so the very element may be gone by the time focus returns, while a button with the same name
 * in the same named region (a task card, a list item) is its successor.
 */
export interface FocusMark {
  element: HTMLElement
  /** The element's accessible name as the user knows it: its aria-label, else its text. */
  name: string
  /** The nearest named region around it (`aria-label` of an article, list item, region …), if any. */
  scope: string | null
}

/** Where focus lands when neither the element nor its successor is on the page: the chat's message box. */
const FALLBACK = 'textarea[aria-label="Message"]'

const nameOf = (el: Element): string => (el.getAttribute('aria-label') ?? el.textContent ?? '').trim()

const onPage = (el: Element | null): boolean =>
  el instanceof HTMLElement && el.isConnected && !el.closest('[hidden], [inert]')

/** What has focus now, or null when nothing in the page does (the body). */
export function markFocus(active: Element | null = document.activeElement): FocusMark | null {
  if (!(active instanceof HTMLElement) || active === document.body) return null
  const region = active.parentElement?.closest('[aria-label]')
  return { element: active, name: nameOf(active), scope: region ? region.getAttribute('aria-label') : null }
}

/** The element a mark points at: itself while on the page, else the same control in the same named region. */
export function findMarked(mark: FocusMark): HTMLElement | null {
  if (onPage(mark.element)) return mark.element
  const regions: ParentNode[] = mark.scope
    ? [...document.querySelectorAll('[aria-label]')].filter(
        (r) => r.getAttribute('aria-label') === mark.scope,
      )
    : [document]
  const tag = mark.element.tagName.toLowerCase()
  for (const region of regions) {
    const same = [...region.querySelectorAll(tag)].find((el) => nameOf(el) === mark.name)
    if (same && onPage(same)) return same as HTMLElement
  }
  // The control went with its state (a rolled-back card has no Commit): its region still says where the user was.
  const region = regions[0]
  if (mark.scope && region instanceof HTMLElement && region.tabIndex >= 0) return region
  return null
}

/** Focus goes back to the mark (or its successor), else to the message box; true when something took it. */
export function returnFocus(mark: FocusMark | null): boolean {
  const target = (mark && findMarked(mark)) ?? document.querySelector<HTMLElement>(FALLBACK)
  if (!target || !onPage(target)) return false
  target.focus({ preventScroll: false })
  return document.activeElement === target
}

/** Clears `timer` at the user's next key or click (their own move wins); returns the function that clears it. */
function untilUserActs(timer: ReturnType<typeof setInterval>): () => void {
  const stop = () => {
    clearInterval(timer)
    if (typeof window === 'undefined') return
    window.removeEventListener('keydown', stop, true)
    window.removeEventListener('pointerdown', stop, true)
  }
  window.addEventListener('keydown', stop, true)
  window.addEventListener('pointerdown', stop, true)
  return stop
}

/** Nothing has focus: it fell to the body (its element was removed or hidden). */
const dropped = () => !document.activeElement || document.activeElement === document.body

/**
 * Returns focus to the mark now, and again while the page settles for `settleMs` (the opener's list re-renders
 * after a rollback and replaces the element): each time focus has fallen to the body, it goes back to the mark's
 * successor. Stops early at the user's next key or click. Returns the stop function.
 */
export function keepFocus(mark: FocusMark | null, settleMs = 1500): () => void {
  returnFocus(mark)
  const started = Date.now()
  const timer = setInterval(() => {
    // The page is gone (a test's DOM torn down under the timer): nothing left to focus.
    if (typeof document === 'undefined' || Date.now() - started > settleMs) stop()
    else if (dropped()) returnFocus(mark)
  }, 50)
  const stop = untilUserActs(timer)
  return stop
}

const TABBABLE =
  'input:not([type="hidden"]), select, textarea, button, a[href], summary, [tabindex]:not([tabindex="-1"])'

/**
 * The control a dialog opens on: its first field, else its first button, skipping what is marked
 * `data-skip-autofocus` (the ✕ in its corner, whose tooltip would swallow the first Esc).
 */
export function firstControl(container: ParentNode): HTMLElement | null {
  for (const el of container.querySelectorAll<HTMLElement>(TABBABLE)) {
    if (el.closest('[data-skip-autofocus]') || el.matches(':disabled') || el.closest('[hidden]')) continue
    return el
  }
  return null
}

/**
 * A Radix dialog's focus handlers (one set per dialog, kept across renders): on open, remember what had focus and
 * start on the dialog's first control; on close, give focus back to the opener or its successor. Radix alone
 * returns focus only to an opener that is still on the page.
 */
export function dialogFocus(options: { startOnFirstControl: boolean }): {
  onOpenAutoFocus(event: Event): void
  onCloseAutoFocus(event: Event): void
} {
  let mark: FocusMark | null = null
  return {
    onOpenAutoFocus(event) {
      mark = markFocus()
      if (!options.startOnFirstControl || !(event.currentTarget instanceof HTMLElement)) return
      const first = firstControl(event.currentTarget)
      if (!first) return
      event.preventDefault()
      first.focus()
    },
    onCloseAutoFocus(event) {
      event.preventDefault()
      keepFocus(mark)
    },
  }
}

/**
 * Focuses the mark's element (or its successor) once it is on the page: a page that was left re-renders from
 * scratch when it comes back, and its data loads first. Gives up after `waitMs`, or at the user's own key or click.
 * Returns the stop function.
 */
export function focusWhenShown(mark: FocusMark, waitMs = 15_000): () => void {
  const started = Date.now()
  const attempt = () => {
    if (typeof document === 'undefined') return stop()
    const target = findMarked(mark)
    // Drawn but not yet focusable (a virtual list measures its rows hidden first): the next tick tries again.
    target?.focus()
    if ((target && document.activeElement === target) || Date.now() - started > waitMs) stop()
  }
  const timer = setInterval(attempt, 50)
  const stop = untilUserActs(timer)
  attempt()
  return stop
}
