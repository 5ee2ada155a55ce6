import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { queueLog } from '../../src/main/queue'
import { verdictSealOf, type ScriptedReply } from '../fixtures/fakeLlmServer'
import { startAppSession, type AppSession } from '../helpers/appSession'
import { shootThemes } from '../helpers/browser'
import { parsed, tools } from '../integration/loop/harness'

// An LLM criterion verified through the Queue panel in Chromium against the real `npm run web`: the fake LLM's
// `verdict` replies are sealed with the nonce each verification request carries, so the real parser reads them.
// The first verification answers NO (FAIL, shown live with its reason), the retry is held at the server until the
// test has seen and photographed that, then the second answers YES (PASS, accepted). Every step waits on a condition.

const CRITERION = 'hello.txt greets the world by name'
const NO_REASON = "hello.txt says only 'hello' and never names the world"
const YES_REASON = "hello.txt reads 'hello world', naming the world"

interface Rec {
  t: string
  id?: string
  name?: string
  s?: string
}

describe('Queue panel: an LLM criterion verified in Chromium', { timeout: 180_000 }, () => {
  let session: AppSession
  let page: Page
  let dir: string

  const panel = () => page.getByRole('tabpanel', { name: 'Queue' })
  const queue = () => panel().getByRole('list', { name: 'Work queue' })
  const task = (name: string) => queue().getByRole('listitem', { name, exact: true })
  const progress = () => panel().getByRole('region', { name: 'Build progress' })
  const built = (name: string) =>
    progress().getByRole('list', { name: 'Built tasks' }).getByRole('listitem', { name, exact: true })
  const tasksOnDisk = (): Rec[] => {
    const text = readFileSync(join(dir, '.ralph', 'plan.jsonl'), 'utf8')
    return text
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Rec)
      .filter((r) => r.t === 'task')
  }
  /** The nonces of the verification requests the fake server received, in order. */
  const verifyNonces = () =>
    session.llm.requests
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => verdictSealOf(r.body))
      .filter((s) => s !== null)
      .map((s) => s.nonce)

  /** One attempt: the parse (optionally held until `hold` resolves), then one iteration writing hello.txt. */
  const attempt = (content: string, hold?: Promise<void>): ScriptedReply[] => {
    const parse = parsed({ type: 'fresh', title: 'Write hello.txt' })
    return [
      hold
        ? {
            kind: 'computed',
            reply: async () => {
              await hold
              return parse
            },
          }
        : parse,
      tools(
        ['write_file', { path: 'hello.txt', content: `${content}\n` }],
        ['mark_complete', { summary: 'Wrote hello.txt as asked.' }],
      ),
    ]
  }

  beforeAll(async () => {
    session = await startAppSession('hello-llm', { 'spec.md': '# Hello\n\nGreet the world.\n' })
    ;({ page, dir } = session)
    await page.goto(`${session.host.origin}/#/project/${session.projectId}?panel=queue`)
  })

  afterAll(async () => {
    await session?.close()
  })

  it('adds a task with an LLM criterion from the panel', async () => {
    await panel().getByText('The work queue is empty').waitFor()
    await panel().getByRole('button', { name: 'Add a first task', exact: true }).click()
    const d = page.getByRole('dialog', { name: 'Add task' })
    await d.getByLabel('Spec file').fill('spec.md')
    await d.getByLabel('Name').fill('Write hello.txt')
    await d.getByLabel('Acceptance criteria').fill(`LLM: ${CRITERION}`)
    await d.getByRole('button', { name: 'Add task' }).click()
    await task('Write hello.txt').waitFor()
    expect(
      await task('Write hello.txt').getByRole('list', { name: 'Acceptance criteria' }).textContent(),
    ).toBe(`LLMAC1${CRITERION}`)
  })

  it('builds: the NO is a FAIL shown with its reason, the retry runs, the YES is a PASS and the task is accepted', async () => {
    const id = tasksOnDisk()[0]!.id!
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    session.llm.enqueue(
      ...attempt('hello'),
      { kind: 'verdict', answer: 'NO', reason: NO_REASON },
      ...attempt('hello world', held),
      { kind: 'verdict', answer: 'YES', reason: YES_REASON },
    )
    await panel().getByRole('button', { name: 'Build', exact: true }).click()
    await progress().getByText('Build running').waitFor({ timeout: 30_000 })

    // The retry is under way (its parse request waits at the server): the failed verification stays on screen.
    await progress().getByText('Attempt 2 of 3').waitFor({ timeout: 90_000 })
    const live = progress().getByRole('list', { name: 'Live verdicts' })
    const no = live.getByRole('listitem', { name: 'AC1 NO' })
    await no.waitFor({ timeout: 30_000 })
    expect(await no.textContent()).toContain(NO_REASON)
    expect(await no.textContent()).toContain('LLM')
    const liveTitle = progress().getByText('Verification of Write hello.txt')
    expect(await liveTitle.textContent()).toContain('FAIL')
    // The nonce shown is the one the verification request carried.
    const [firstNonce] = verifyNonces()
    expect(firstNonce).toMatch(/^[0-9A-F]{6}$/)
    expect(await liveTitle.textContent()).toContain(`nonce ${firstNonce}`)
    // The queue shows the task back to pending with the reason its retry reads.
    await task('Write hello.txt').getByText(NO_REASON, { exact: false }).waitFor({ timeout: 30_000 })
    await shootThemes(page, 'queue-llm-verdict-fail')
    release()

    await progress().getByText('Last build').waitFor({ timeout: 90_000 })
    expect(await progress().textContent()).toContain('Build complete.')
    const done = built('Write hello.txt')
    expect(await done.textContent()).toContain('accepted')
    expect(await done.textContent()).toContain('2 attempts')
    const verification = done.getByRole('group', { name: `Verification of ${id}` })
    const yes = verification
      .getByRole('list', { name: 'Verdicts' })
      .getByRole('listitem', { name: 'AC1 YES' })
    await yes.waitFor({ timeout: 30_000 })
    expect(await yes.textContent()).toContain(YES_REASON)
    const [, secondNonce] = verifyNonces()
    expect(secondNonce).not.toBe(firstNonce)
    const summary = await verification.textContent()
    expect(summary).toContain('PASS')
    expect(summary).toContain(`nonce ${secondNonce}`)
    expect(summary).toContain('1 earlier')
    await shootThemes(page, 'queue-llm-verdict-pass')

    // Two verifications, one request each: no repair was needed.
    expect(verifyNonces()).toEqual([firstNonce, secondNonce])
    // The retry's iteration read the FAIL's reason.
    const chats = session.llm.requests
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => JSON.stringify(r.body))
    expect(chats).toHaveLength(6)
    expect(chats[4]).toContain(NO_REASON)
    expect(readFileSync(join(dir, 'hello.txt'), 'utf8')).toBe('hello world\n')
    await expect.poll(tasksOnDisk).toEqual([])
    const all = await queueLog({ projectDir: dir, all: true })
    expect(all.kind === 'tasks' && all.tasks.map((t) => [t.id, t.status, t.rejections.length])).toEqual([
      [id, 'accepted', 1],
    ])
  })

  it('two malformed answers: NEEDS_HUMAN pauses the build, the verdict says why, and Accept decides', async () => {
    await panel().getByRole('button', { name: 'Add task', exact: true }).click()
    const d = page.getByRole('dialog', { name: 'Add task' })
    await d.getByLabel('Name').fill('Write bye.txt')
    await d.getByLabel('Acceptance criteria').fill('LLM: bye.txt says goodbye')
    await d.getByRole('button', { name: 'Add task' }).click()
    await task('Write bye.txt').waitFor()
    const id = tasksOnDisk()[0]!.id!
    const before = verifyNonces().length
    session.llm.enqueue(
      parsed({ type: 'fresh', title: 'Write bye.txt' }),
      tools(
        ['write_file', { path: 'bye.txt', content: 'goodbye\n' }],
        ['mark_complete', { summary: 'Wrote bye.txt.' }],
      ),
      { kind: 'verdict', answer: 'YES', reason: 'bye.txt says goodbye', flaw: 'prose' },
      { kind: 'verdict', answer: 'YES', reason: 'bye.txt says goodbye', flaw: 'wrong-nonce' },
    )
    await panel().getByRole('button', { name: 'Build', exact: true }).click()
    await progress().getByText('Build paused.').waitFor({ timeout: 90_000 })

    // One verification, asked twice (the repair) with the same nonce, and no more.
    const nonces = verifyNonces().slice(before)
    expect(nonces).toHaveLength(2)
    expect(nonces[1]).toBe(nonces[0])
    // The task waits, done, with its undecided verdict and the buttons to decide it.
    const item = task('Write bye.txt')
    await item.getByRole('button', { name: 'Accept' }).waitFor({ timeout: 30_000 })
    const verification = item.getByRole('group', { name: `Verification of ${id}` })
    const undecided = verification.getByRole('listitem', { name: 'AC1 NEEDS_HUMAN' })
    await undecided.waitFor({ timeout: 30_000 })
    expect(await undecided.textContent()).toContain('could not be parsed, even after one repair request')
    expect(await verification.textContent()).toContain(`nonce ${nonces[0]}`)
    expect(tasksOnDisk()).toEqual([expect.objectContaining({ id, s: 'd' })])
    await item.scrollIntoViewIfNeeded()
    await shootThemes(page, 'queue-llm-verdict-needs-human')

    await item.getByRole('button', { name: 'Accept' }).click()
    await item.waitFor({ state: 'detached' })
    await expect.poll(tasksOnDisk).toEqual([])
    const all = await queueLog({ projectDir: dir, all: true })
    expect(all.kind === 'tasks' && all.tasks.find((t) => t.id === id)?.status).toBe('accepted')
  })
})
