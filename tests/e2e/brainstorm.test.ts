import { mkdirSync, readFileSync, existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FakeLlmServer, ScriptedReply } from '../fixtures/fakeLlmServer'
import { shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'
import type { WebHost } from '../helpers/webHost'
import { docsReply, reviewReply, roadmapDoc, turn, visionDoc } from '../integration/brainstorm/fixtures'

const domains = ['Core', 'UX', 'Ops', 'Sec', 'Biz']

/** One IDEATE exchange: the user names five ideas; the facilitator captures each in the user's words. */
function ideas(from: number): { answer: string; reply: ScriptedReply } {
  const items = Array.from({ length: 5 }, (_, i) => `idea ${from + i}: pantry thing ${from + i}`)
  return {
    answer: items.join('; '),
    reply: turn(
      'Good. What else could help on a busy weeknight?',
      items.map((q, i) => ({ quote: q, title: `Pantry thing ${from + i}`, domain: domains[i % 5] })),
    ),
  }
}

const statements = {
  vision: 'A recipe box that knows what is in the pantry, so weeknight cooking starts from what you have.',
  successTruths: ['A new user imports 3 recipes within 5 minutes', 'A recipe shows its missing ingredients'],
  nonGoals: ['No social feed', 'No meal delivery'],
  constraints: ['One developer', 'Web only'],
  risks: ['Recipe sites block scraping: fall back to paste'],
  openQuestions: ['Which sites matter most?'],
}

// The brainstorm wizard in Chromium against the real `npm run web` and the scripted fake LLM: a quick-mode session
// and a full seven-phase one, each to written files. Every wait is on a condition; timeouts are for CI's busy machine.
describe('brainstorm wizard in Chromium', { timeout: 120_000 }, () => {
  let session: AppSession
  let llm: FakeLlmServer
  let host: WebHost
  let page: Page
  let dir: string
  let fullDir: string
  let fullId: number

  const working = () => page.getByRole('status').filter({ hasText: 'The facilitator is working…' })
  /** Both themes of the page at rest (no step running), unless the shot is of the progress itself. */
  async function shoot(name: string, { busy = false } = {}) {
    if (!busy) await working().waitFor({ state: 'detached', timeout: 30_000 })
    await shootThemes(page, `brainstorm-${name}`)
  }
  const phases = () => page.getByRole('list', { name: 'Brainstorm phases' })
  const currentPhase = () => phases().locator('[aria-current="step"]')
  const atPhase = (name: string) => phases().locator(`[aria-current="step"][aria-label="${name}"]`).waitFor()
  const button = (name: string | RegExp) =>
    page.getByRole('button', { name, exact: typeof name === 'string' })
  /** Waits until the button can be used (not aria-disabled: a step is not running), then clicks it. */
  async function press(name: string | RegExp) {
    const b = button(name)
    await b.and(page.locator(':not([aria-disabled="true"])')).waitFor({ timeout: 30_000 })
    await b.click()
  }
  async function say(text: string, box = 'Your answer') {
    await page.getByRole('textbox', { name: box }).fill(text)
    await press('Send')
  }

  beforeAll(async () => {
    // An existing VISION.md: the quick session must ask Update or New draft before writing.
    session = await startAppSession('pantry', { 'VISION.md': '# My old vision\n' })
    ;({ llm, host, page, dir } = session)
    fullDir = join(dirname(dir), 'pantry-full')
    mkdirSync(fullDir)
    const opened = await session.call('projects.open', { path: fullDir })
    fullId = opened.value.id as number
  })

  afterAll(() => session?.close())

  it('reaches the wizard from the empty chat and from the project header', async () => {
    await page.goto(`${host.origin}/#/project/${session.projectId}`)
    await page.getByRole('link', { name: 'Brainstorm it first' }).waitFor()
    await page.getByRole('link', { name: 'Brainstorm', exact: true }).click()
    await page.waitForURL(`${host.origin}/#/project/${session.projectId}/brainstorm`)
    await page.getByRole('heading', { name: 'Guided brainstorm' }).waitFor()
    await button('Write the documents').waitFor()
    await shoot('00-start')
  }, 60_000)

  it('quick mode: the form, the documents, the review, Update, Write files, the work queue', async () => {
    const form = page.getByRole('form', { name: 'Quick mode' })
    await form
      .getByRole('textbox', { name: /^Description/ })
      .fill('A pantry-aware recipe box for busy home cooks.')
    await form
      .getByRole('textbox', { name: /^Must-haves/ })
      .fill('import from a URL; pantry list; missing ingredients')
    await form.getByRole('textbox', { name: /^Non-goals/ }).fill('no social feed')
    await form.getByRole('textbox', { name: /^Constraints/ }).fill('one developer, web only')
    await form
      .getByRole('textbox', { name: /^Success outcomes/ })
      .fill('a new user imports 3 recipes in 5 minutes')
    llm.enqueue(docsReply(), reviewReply(6))
    await press('Write the documents')

    await atPhase('Output')
    await page
      .getByTestId('VISION.md-lines')
      .filter({ hasText: /^\d+ \/ 80 lines$/ })
      .waitFor()
    await page.getByTestId('ROADMAP.md-lines').filter({ hasText: '/ 120 lines' }).waitFor()
    expect(
      await phases()
        .getByRole('listitem')
        .evaluateAll((li) => li.map((l) => l.getAttribute('aria-label'))),
    ).toEqual(['Setup', 'Technique', 'Ideate', 'Organize', 'Crystallize', 'Output', 'Review'])
    await shoot('01-quick-output')

    await press('Looks right')
    const findings = page.getByRole('list', { name: 'Findings' })
    await findings.getByRole('listitem').nth(5).waitFor()
    const names = await findings
      .getByRole('listitem')
      .evaluateAll((li) => li.map((l) => l.getAttribute('aria-label')))
    expect(names.every((n) => /^(HIGH|MED|LOW): /.test(n ?? ''))).toBe(true)
    await atPhase('Review')
    await shoot('02-quick-review')

    // The first finding applied (the model revises both documents), the rest dismissed.
    llm.enqueue(docsReply(visionDoc(), roadmapDoc()))
    await findings.getByRole('listitem').first().getByRole('button', { name: 'Apply' }).click()
    for (let i = 1; i < 6; i++) {
      const item = findings.getByRole('listitem').nth(i)
      await item
        .getByRole('button', { name: 'Dismiss' })
        .and(page.locator(':not([aria-disabled="true"])'))
        .waitFor()
      await item.getByRole('button', { name: 'Dismiss' }).click()
    }
    await button('Update').waitFor({ timeout: 30_000 })
    await button('New draft').waitFor()
    await shoot('03-quick-existing-file')
    await press('Update')
    await press('Write files')
    await page.getByRole('region', { name: 'Written' }).getByText('ROADMAP.md', { exact: true }).waitFor()
    expect(readFileSync(join(dir, 'VISION.md'), 'utf8')).toBe(`${visionDoc()}\n`)
    expect(readFileSync(join(dir, 'ROADMAP.md'), 'utf8')).toBe(`${roadmapDoc()}\n`)
    expect(await currentPhase().count()).toBe(0)

    await press('Create the work queue from this roadmap')
    await page
      .getByRole('status')
      .filter({ hasText: /^Queued \d+ tasks in 2 specs/ })
      .waitFor()
    expect(existsSync(join(dir, 'specs'))).toBe(true)
    await shoot('04-quick-done')
  }, 90_000)

  it('full session: setup, pitch, technique library, ideate with the live ledger', async () => {
    await page.goto(`${host.origin}/#/project/${fullId}/brainstorm`)
    llm.enqueue(
      turn('Welcome! We will go from a rough idea to a vision and a roadmap. What are we building?'),
    )
    await press('Start the brainstorm')
    await atPhase('Setup')
    await page
      .getByRole('log', { name: 'Exchange' })
      .getByText('What are we building?', { exact: false })
      .waitFor()
    await shoot('05-setup')

    llm.enqueue(
      turn('So, in one sentence:', [], { phaseDone: true, pitch: 'A recipe box that knows your pantry.' }),
    )
    await say('A recipe box for home cooks that knows my pantry; busy parents use it on weeknights.')
    await page
      .getByRole('region', { name: 'Pitch' })
      .getByText('A recipe box that knows your pantry.')
      .waitFor()
    await shoot('06-pitch')
    await press("Yes, that's it")

    await atPhase('Technique')
    await button('User-selected').waitFor()
    await shoot('07-technique')
    await press('User-selected')
    await page
      .getByRole('region', { name: 'Technique library' })
      .getByRole('button', { name: 'Use creative' })
      .waitFor()
    await shoot('08-technique-library')
    llm.enqueue(turn('Under What-If Scenarios: what if the recipe box knew your fridge?'))
    await press('Use creative')

    await atPhase('Ideate')
    const ledger = page.getByRole('list', { name: 'Ideas' })
    for (let round = 0; round < 5; round++) {
      const { answer, reply } = ideas(round * 5 + 1)
      llm.enqueue(reply)
      await say(answer, 'Your ideas')
      await ledger
        .getByRole('listitem', { name: new RegExp(`^I${String(round * 5 + 5).padStart(3, '0')} `) })
        .waitFor()
    }
    await page.getByTestId('idea-count').filter({ hasText: /^25$/ }).waitFor()
    // Five exchanges: the energy check, as buttons.
    await button('Keep going').waitFor()
    await button('Switch technique').waitFor()
    await page.getByRole('list', { name: /^Domains covered: 5 of 12/ }).waitFor()
    await shoot('09-ideate')

    // Resumable: a reload shows the same phase and the same ledger, read back from SQLite.
    await page.reload()
    await atPhase('Ideate')
    await ledger.getByRole('listitem', { name: /^I025 / }).waitFor()
    await button('Organize').waitFor()
  }, 90_000)

  it('full session: a running step shows progress and stops; Continue runs it again', async () => {
    const chats = () => llm.requests.filter((r) => r.path === '/v1/chat/completions').length
    const before = chats()
    llm.enqueue({ kind: 'hang' })
    await press('Organize')
    await atPhase('Organize')
    await working().waitFor()
    await expect.poll(chats).toBe(before + 1)
    await shoot('10-progress', { busy: true })
    await press('Stop')
    await page.getByText(/^Stopped\. The session is saved/).waitFor()
    await button('Continue').waitFor()
  }, 60_000)

  it('full session: organize on the MoSCoW board, crystallize the cards', async () => {
    llm.enqueue({
      kind: 'json',
      value: {
        say: 'Here are the themes I see. Rename, merge or move them.',
        captured: [],
        phaseDone: false,
        themes: [
          {
            name: 'Recipe import',
            ideas: ['I001', 'I006', 'I011'],
            priority: 'must',
            risk: 'Sites block scraping',
          },
          { name: 'Pantry tracking', ideas: ['I002', 'I007'], priority: 'should', risk: null },
          { name: 'Sharing', ideas: ['I005', 'I099'], priority: 'wont', risk: null },
          { name: 'Reminders', ideas: ['I004'], priority: null, risk: null },
        ],
      },
    })
    await press('Continue')
    await atPhase('Organize')
    const board = page.getByRole('region', { name: 'MoSCoW board' })
    await board.getByRole('article', { name: 'Recipe import' }).waitFor()
    // The invented I099 is not in the ledger: dropped by the harness.
    expect(await board.getByRole('article', { name: 'Sharing' }).textContent()).not.toContain('I099')
    await board.getByRole('combobox', { name: 'Priority of Reminders' }).selectOption('could')
    await board
      .getByRole('group', { name: 'Could-have' })
      .getByRole('article', { name: 'Reminders' })
      .waitFor()
    await shoot('11-organize')

    llm.enqueue(turn('Agreed: the board stands, optimizing for speed to an MVP.', [], { phaseDone: true }), {
      kind: 'json',
      value: {
        say: 'Here are the six statements. Approve or edit each.',
        captured: [],
        phaseDone: false,
        statements,
      },
    })
    await press('Send my board')
    await atPhase('Crystallize')
    await page.getByRole('article', { name: 'Success truths' }).waitFor()
    await page.getByRole('button', { name: 'Edit Non-goals' }).click()
    await page
      .getByRole('textbox', { name: 'Edit Non-goals' })
      .fill('No social feed\nNo meal delivery\nNo Windows app')
    await page.getByRole('article', { name: 'Non-goals' }).getByRole('button', { name: 'Save' }).click()
    for (const title of ['Vision', 'Success truths', 'Constraints', 'Key risks', 'Open questions'])
      await page.getByRole('button', { name: `Approve ${title}` }).click()
    await page.getByRole('article', { name: 'Non-goals' }).getByText('No Windows app').waitFor()
    await shoot('12-crystallize')
  }, 90_000)

  it('full session: a draft refused twice is fixed by hand, reviewed and written', async () => {
    const tooLong = docsReply(visionDoc(90), roadmapDoc())
    llm.enqueue(turn('All six approved.', [], { phaseDone: true }), tooLong, tooLong)
    await press('Continue to the documents')
    await atPhase('Output')
    await page
      .getByRole('list', { name: 'Problems' })
      .getByText('VISION.md has 119 lines; the limit is 80.')
      .waitFor()
    const vision = page.getByRole('textbox', { name: /^VISION\.md/ })
    await expect.poll(() => vision.inputValue()).toBe(visionDoc(90))
    await page.getByRole('list', { name: 'Draft problems' }).waitFor()
    await shoot('13-output-refused')
    await vision.fill(visionDoc())
    await page.getByText('Both documents pass.').waitFor()
    await press('Use my edited draft')

    await page
      .getByTestId('VISION.md-lines')
      .filter({ hasText: /^\d+ \/ 80 lines$/ })
      .waitFor()
    await page.getByRole('region', { name: 'VISION.md' }).getByRole('tab', { name: 'Raw' }).click()
    await page
      .getByRole('region', { name: 'VISION.md' })
      .getByText('vision_yaml<=300t:', { exact: false })
      .waitFor()
    await shoot('14-output')

    llm.enqueue(reviewReply(5))
    await press('Looks right')
    const findings = page.getByRole('list', { name: 'Findings' })
    await findings.getByRole('listitem').nth(4).waitFor()
    await shoot('15-review')
    for (let i = 0; i < 5; i++) {
      const dismiss = findings.getByRole('listitem').nth(i).getByRole('button', { name: 'Dismiss' })
      await dismiss.and(page.locator(':not([aria-disabled="true"])')).waitFor()
      await dismiss.click()
    }
    await press('Write files')
    await page.getByRole('region', { name: 'Written' }).getByText('VISION.md', { exact: true }).waitFor()
    expect(readFileSync(join(fullDir, 'VISION.md'), 'utf8')).toBe(`${visionDoc()}\n`)
    // The usage of every model call is kept with the session.
    await page.getByText(/^\d+ model calls · /).waitFor()
    await shoot('16-done')
  }, 90_000)
})
