import { describe, expect, it } from 'vitest'
import { forTheApp, withoutCliHints } from './appText'

// The core's messages, word for word as src/main/build and src/main/queue write them for the CLI.
const names = new Map([
  ['t-3s71', 'Write a.txt'],
  ['t-9k2q', 'Hero copy'],
])

describe('the core’s messages in the app', () => {
  it('says what to click instead of which command to run, and names the task', () => {
    expect(
      forTheApp(
        't-3s71 needs a person: verification could not decide every criterion. Accept it with `ralph task accept t-3s71` or reject it with `ralph task reject "reason" --id t-3s71`, then run `ralph build` again.',
        names,
      ),
    ).toBe(
      '“Write a.txt” needs a person: verification could not decide every criterion. Accept or reject it with its buttons in the queue, then click Build again.',
    )
    expect(
      forTheApp(
        't-3s71 passed verification but was not approved; it stays done. Accept it (`ralph task accept t-3s71`) or reject it (`ralph task reject "reason" --id t-3s71`), then build again.',
        names,
      ),
    ).toBe(
      '“Write a.txt” passed verification but was not approved; it stays done. Accept or reject it with its buttons in the queue, then click Build again.',
    )
    expect(
      forTheApp(
        't-3s71 passed verification and waits for your approval (interactive mode): `ralph task accept t-3s71`, then `ralph build` again.',
        names,
      ),
    ).toBe(
      '“Write a.txt” passed verification and waits for your approval (interactive mode): click Accept on it in the queue, then Build again.',
    )
    expect(
      forTheApp(
        't-9k2q needs a clarification before it can be built: Which font? Add it to the task\'s notes (`ralph task edit t-9k2q --notes "…"`) and run `ralph build` again.',
        names,
      ),
    ).toBe(
      '“Hero copy” needs a clarification before it can be built: Which font? Add it to the task’s notes (Edit on the task), then click Build again.',
    )
  })

  it('drops command asides and command-only sentences, and keeps a message that is nothing else', () => {
    expect(
      withoutCliHints('t-1 is still pending: only done tasks can be accepted (`ralph task done t-1` first).'),
    ).toBe('t-1 is still pending: only done tasks can be accepted.')
    expect(
      withoutCliHints(
        'There is no task t-1 in the queue. `ralph query tasks` lists the ids (accepted tasks leave the file).',
      ),
    ).toBe('There is no task t-1 in the queue.')
    expect(withoutCliHints('Run `ralph build`.')).toBe('Run build.')
    expect(withoutCliHints('Nothing about the CLI here.')).toBe('Nothing about the CLI here.')
  })

  it('leaves an id it has no name for as it is, and says a name once', () => {
    expect(forTheApp('t-zzzz was accepted.', names)).toBe('t-zzzz was accepted.')
    expect(forTheApp('t-3s71 "Write a.txt": attempt 2', names)).toBe('“Write a.txt”: attempt 2')
  })
})
