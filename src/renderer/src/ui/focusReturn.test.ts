import { afterEach, describe, expect, it, vi } from 'vitest'
import { findMarked, firstControl, keepFocus, markFocus, returnFocus } from './focusReturn'

const html = (markup: string) => {
  document.body.innerHTML = markup
}
const byText = (text: string) =>
  [...document.querySelectorAll<HTMLElement>('button')].find((b) => b.textContent === text)!

describe('focus return', () => {
  afterEach(() => {
    vi.useRealTimers()
    document.body.innerHTML = ''
  })

  it('remembers a control by its name and the named region around it', () => {
    html('<article aria-label="Task 2: Greet"><footer><button>Roll back</button></footer></article>')
    byText('Roll back').focus()
    expect(markFocus()).toMatchObject({ name: 'Roll back', scope: 'Task 2: Greet' })
    byText('Roll back').blur()
    expect(markFocus()).toBeNull()
  })

  it('finds the successor of a control its list drew anew: same name, same region, not another card’s', () => {
    html(
      '<article aria-label="Task 1: A"><button>Roll back</button></article>' +
        '<article aria-label="Task 2: B"><button>Roll back</button></article>',
    )
    const second = document.querySelectorAll('button')[1]!
    second.focus()
    const mark = markFocus()!
    html(
      '<article aria-label="Task 1: A"><button>Roll back</button></article>' +
        '<article aria-label="Task 2: B"><button>Roll back</button></article>',
    )
    const successor = findMarked(mark)
    expect(successor).not.toBe(second)
    expect(successor?.closest('article')?.getAttribute('aria-label')).toBe('Task 2: B')
  })

  it('falls back to the region when the control went with its state, else to the message box', () => {
    html('<article aria-label="Task 1: A" tabindex="-1"><button>Commit to my git</button></article>')
    byText('Commit to my git').focus()
    const mark = markFocus()!
    // A focusable region (tabindex 0) takes it; one that is not, does not.
    html(
      '<article aria-label="Task 1: A" tabindex="0"><p>Rolled back</p></article><textarea aria-label="Message"></textarea>',
    )
    expect(findMarked(mark)?.tagName).toBe('ARTICLE')
    html(
      '<article aria-label="Task 1: A"><p>Rolled back</p></article><textarea aria-label="Message"></textarea>',
    )
    expect(findMarked(mark)).toBeNull()
    expect(returnFocus(mark)).toBe(true)
    expect(document.activeElement?.getAttribute('aria-label')).toBe('Message')
  })

  it('keeps giving focus back while the page settles, and stops at the user’s own key', () => {
    vi.useFakeTimers()
    html('<article aria-label="Task 1: A"><button>Roll back</button></article>')
    byText('Roll back').focus()
    const mark = markFocus()!
    const stop = keepFocus(mark, 1000)
    expect(document.activeElement).toBe(byText('Roll back'))
    // The list re-renders after the rollback: focus falls to the body, then goes to the new button.
    html('<article aria-label="Task 1: A"><button>Roll back</button></article>')
    expect(document.activeElement).toBe(document.body)
    vi.advanceTimersByTime(60)
    expect(document.activeElement).toBe(byText('Roll back'))
    // The user moves on: nothing pulls focus back any more.
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Tab' }))
    html('<article aria-label="Task 1: A"><button>Roll back</button></article>')
    vi.advanceTimersByTime(200)
    expect(document.activeElement).toBe(document.body)
    stop()
  })

  it('opens a dialog on its first field, skipping the ✕ and what is disabled', () => {
    html(
      '<div><button data-skip-autofocus aria-label="Close">x</button><input disabled />' +
        '<input type="hidden" /><input aria-label="Name" /><button>Save</button></div>',
    )
    expect(firstControl(document.body)?.getAttribute('aria-label')).toBe('Name')
    html('<div><button data-skip-autofocus aria-label="Close">x</button></div>')
    expect(firstControl(document.body)).toBeNull()
  })
})
