import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FakeLlmServer } from '../fixtures/fakeLlmServer'
import { shootThemes } from '../helpers/browser'
import { startAppSession, type AppSession } from '../helpers/appSession'

// The plan editor in Chromium against the real `npm run web`, after the VIBRANT ENERGY sequence (seed 000): a fresh
// task writes the plan and the landing page, then "add 2 more drinks for nighttime" marks the plan and builds.
// Every step waits on a condition; the generous timeouts are for CI's busy 2-core machine.

const flavorNames = ['Volt', 'Surge', 'Blaze', 'Frost', 'Pulse', 'Nova', 'Rush', 'Spark']
const flavorsFile = (names: string[]) =>
  `export const flavors = [\n${names.map((n) => `  { name: '${n}', kick: 'high' },`).join('\n')}\n]\n`

const plan = (m: { theme?: string; hero?: string; features?: string; cta?: string; store?: string } = {}) =>
  `import { App, Theme, Screen, Nav, NavItem, Content, Section, Gumdrop, Slot, Action } from 'ralph-plan'

export default (
  <App name="VIBRANT ENERGY" description="Energy drink landing page">
    <Theme mood="industrial" seed={140} pattern="triadic" font="Space Grotesk" radius="sm">${m.theme ?? ''}
    </Theme>

    <Screen name="landing" layout="full-bleed">
      <Nav gumdrop="top-nav">
        <NavItem label="Flavors" to="#flavors" />
        <NavItem label="Store" to="/store" />
      </Nav>
      <Content>
        <Section gumdrop="hero" files={['src/components/Hero.tsx']}>${m.hero ?? ''}
          <Slot name="headline" description="one line, loud" />
          <Action trigger="Shop now" intent="primary" />
        </Section>

        <Section gumdrop="features" cols={${m.features ? 5 : 4}} files={['src/data/flavors.ts']}>${m.features ?? ''}
          <Gumdrop use="card" variant="flavor" />
        </Section>

        <Section gumdrop="cta" files={['src/components/Cta.tsx']}>${m.cta ?? ''}
          <Action trigger="Find a store" intent="secondary" />
        </Section>
      </Content>
    </Screen>

    <Screen name="store">${m.store ?? ''}
      <Content>
        <Section gumdrop="grid-list" files={['src/pages/Store.tsx']} />
      </Content>
    </Screen>
  </App>
)
`

const marker = (text: string) => `\n          {/* ${text} */}`
const planV1 = plan()
const planV2 = plan({
  hero: marker('TASK-2 [MODIFY]: refine copy — less generic, more adult'),
  features:
    marker('TASK-2 [ADD]: 2 nighttime drink flavors (Moonlit Calm, Deep Rest)') +
    marker('EXISTING 8 flavors PRESERVED — do not remove or convert'),
  store: '\n      {/* NO CHANGES for task-2 — preserve as-is */}',
})

const hero = (line: string) => `export function Hero() {\n  return <h1>${line}</h1>\n}\n`

describe('plan editor in Chromium', { timeout: 120_000 }, () => {
  let session: AppSession
  let llm: FakeLlmServer
  let page: Page
  let dir: string
  let projectUrl: string

  const shoot = (name: string) => shootThemes(page, `plan-${name}`)
  const file = (name: string) => join(dir, name)
  const log = () => page.getByRole('log', { name: 'Conversation' })
  const problems = () => page.getByRole('list', { name: 'Problems' })
  const editor = () => page.getByTestId('plan-monaco')
  /** Monaco renders each visible line as a `.view-line`; its text uses non-breaking spaces. */
  const linesWith = async (selector: string) =>
    (
      await editor()
        .locator('.view-line')
        .filter({ has: page.locator(selector) })
        .allTextContents()
    ).map((t) => t.replace(/\u00a0/g, ' ').trim())
  const viewLine = (text: string): Locator => editor().locator('.view-line', { hasText: text })

  const sendTask = async (message: string, title: string, n: number) => {
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill(message)
    await box.press('Control+Enter')
    const card = log().getByRole('article', { name: `Task ${n}: ${title}` })
    await card.getByText('Complete', { exact: true }).waitFor({ timeout: 60_000 })
    return card
  }

  beforeAll(async () => {
    session = await startAppSession('vibrant')
    ;({ llm, page, dir } = session)
    projectUrl = `${session.host.origin}/#/project/${session.projectId}`
    // Tall enough that the whole plan is rendered at once in full-width mode.
    await page.setViewportSize({ width: 1280, height: 1100 })
  })

  afterAll(() => session?.close())

  it('runs the VIBRANT ENERGY sequence: a fresh landing page, then "add 2 more drinks"', async () => {
    llm.enqueue(
      {
        kind: 'json',
        value: {
          type: 'fresh',
          title: 'VIBRANT ENERGY landing page',
          requirements: [
            { marker: 'ADD', description: 'a landing page with 8 flavors and a store', count: null },
          ],
          scope: { preserve: [], affectedFiles: [] },
          clarification: null,
        },
      },
      {
        kind: 'tools',
        calls: [{ name: 'write_file', arguments: { path: '.ralph/plan.tsx', content: planV1 } }],
      },
      { kind: 'text', text: 'Plan written.' },
      {
        kind: 'tools',
        calls: [
          ['src/components/Hero.tsx', hero('Unleash the voltage')],
          ['src/data/flavors.ts', flavorsFile(flavorNames)],
          ['src/components/Cta.tsx', 'export const Cta = () => <a href="/store">Find a store</a>\n'],
          ['src/pages/Store.tsx', 'export const Store = () => <ul><li>Online</li></ul>\n'],
        ].map(([path, content]) => ({ name: 'write_file', arguments: { path, content } })),
      },
      {
        kind: 'tools',
        calls: [{ name: 'mark_complete', arguments: { summary: 'Built the landing page.' } }],
      },
    )
    await page.goto(projectUrl)
    await sendTask(
      'build an energy drink landing page called VIBRANT ENERGY',
      'VIBRANT ENERGY landing page',
      1,
    )

    llm.enqueue(
      {
        kind: 'json',
        value: {
          type: 'mutation',
          title: 'Add 2 nighttime drinks',
          requirements: [{ marker: 'ADD', description: '2 nighttime drink flavors', count: 2 }],
          scope: { preserve: ['the 8 existing flavors'], affectedFiles: ['src/data/flavors.ts'] },
          clarification: null,
        },
      },
      {
        kind: 'tools',
        calls: [{ name: 'write_file', arguments: { path: '.ralph/plan.tsx', content: planV2 } }],
      },
      { kind: 'text', text: 'Plan updated.' },
      {
        kind: 'tools',
        calls: [
          ['src/data/flavors.ts', flavorsFile([...flavorNames, 'Moonlit Calm', 'Deep Rest'])],
          ['src/components/Hero.tsx', hero('Energy for grown-ups, day and night')],
        ].map(([path, content]) => ({ name: 'write_file', arguments: { path, content } })),
      },
      {
        kind: 'tools',
        calls: [{ name: 'mark_complete', arguments: { summary: 'Added two night flavors.' } }],
      },
    )
    const card = await sendTask('add 2 more drinks for nighttime', 'Add 2 nighttime drinks', 2)
    expect(await card.textContent()).toContain('Kept to the plan: passed')
    expect(readFileSync(file('.ralph/plan.tsx'), 'utf8')).toBe(planV2)
  }, 150_000)

  it('shows the plan with the MODIFY, ADD, PRESERVED and NO CHANGES classes on exactly their lines', async () => {
    await page.goto(`${projectUrl}?panel=plan`)
    await page.getByRole('button', { name: 'Full width' }).click()
    await editor().locator('.plan-marker-add').first().waitFor({ timeout: 30_000 })
    expect(await linesWith('.plan-marker-modify')).toEqual([
      '{/* TASK-2 [MODIFY]: refine copy — less generic, more adult */}',
    ])
    expect(await linesWith('.plan-marker-add')).toEqual([
      '{/* TASK-2 [ADD]: 2 nighttime drink flavors (Moonlit Calm, Deep Rest) */}',
    ])
    expect(await linesWith('.plan-marker-preserved')).toEqual([
      '{/* EXISTING 8 flavors PRESERVED — do not remove or convert */}',
    ])
    expect(await linesWith('.plan-marker-no-changes')).toEqual([
      '{/* NO CHANGES for task-2 — preserve as-is */}',
    ])
    for (const kind of ['fix', 'remove']) expect(await linesWith(`.plan-marker-${kind}`)).toEqual([])
    // One gutter glyph per marker line.
    expect(await editor().locator('.plan-glyph').count()).toBe(4)
    // The plan is valid: warnings at most.
    await problems().getByText('0 failures', { exact: false }).or(problems().locator('li')).first().waitFor()
    const outline = page.getByRole('navigation', { name: 'Outline' })
    await outline.getByRole('button', { name: /^features/ }).waitFor()
    expect(await outline.textContent()).toContain('ADD')
    await shoot('01-editor')

    // The hover says what the gate checks, with the numbers counted at task-2-pre.
    const marker = viewLine('TASK-2 [ADD]').locator('.plan-marker-add', { hasText: 'ADD' })
    const hover = page.locator('.monaco-hover').filter({ hasText: 'must grow from 8 to 10' })
    // Monaco opens a hover once the pointer rests on the word; a re-render under a resting pointer opens none, so
    // the pointer leaves and comes back until it shows.
    await expect
      .poll(
        async () => {
          await page.mouse.move(0, 0)
          await marker.hover()
          return hover.waitFor({ timeout: 3_000 }).then(
            () => true,
            () => false,
          )
        },
        { timeout: 30_000 },
      )
      .toBe(true)
    await shoot('02-marker-hover')
    await page.mouse.move(0, 0)
  })

  it('lists an unknown component under "Problems" with its rule id, and a click jumps to it', async () => {
    await viewLine('<Gumdrop use="card" variant="flavor" />').click()
    await page.keyboard.press('End')
    await page.keyboard.press('Enter')
    await page.keyboard.type('<Carousel use="night" />')
    const typed = Date.now()
    const entry = problems().getByRole('button', { name: /known-components/ })
    await entry.waitFor({ timeout: 15_000 })
    // The issue's "within 1 s" is a benchmark row (npm run bench:ui); here it is only reported.
    console.log(
      `plan editor: the unknown component was listed ${Date.now() - typed} ms after the last keystroke`,
    )
    expect(await entry.textContent()).toContain('Carousel')
    await editor().locator('.squiggly-error').first().waitFor()
    await shoot('03-problem')
    await page
      .getByRole('navigation', { name: 'Outline' })
      .getByRole('button', { name: /^store/ })
      .click()
    await entry.click()
    // The cursor is on the Carousel line again: Monaco highlights the current line.
    await editor().locator('.current-line').first().waitFor()
  })

  it('saves with Ctrl+S after a confirmation naming the problems, and the file is written', async () => {
    await page.keyboard.press('Control+s')
    const confirm = page.getByRole('alertdialog', { name: 'Save a plan with problems?' })
    await confirm.getByText('known-components', { exact: false }).first().waitFor()
    await shootThemes(page, 'plan-04-save-confirm')
    await confirm.getByRole('button', { name: 'Save anyway' }).click()
    await expect
      .poll(() => readFileSync(file('.ralph/plan.tsx'), 'utf8'), { timeout: 15_000 })
      .toContain('<Carousel use="night" />')
    // The file is on disk before the answer reaches the page: Save turns off once the page has it.
    await expect
      .poll(() => page.getByRole('button', { name: 'Save' }).getAttribute('aria-disabled'))
      .toBe('true')
  })

  it('follows a change on disk, and under unsaved edits offers reload, keep mine or the difference', async () => {
    // No unsaved edits: the editor simply follows the file.
    writeFileSync(file('.ralph/plan.tsx'), planV2)
    await expect.poll(() => viewLine('<Carousel').count(), { timeout: 20_000 }).toBe(0)

    await viewLine('<Gumdrop use="card" variant="flavor" />').click()
    await page.keyboard.press('End')
    await page.keyboard.type(' ')
    writeFileSync(file('.ralph/plan.tsx'), planV2.replace('one line, loud', 'one line, louder'))
    const banner = page.getByRole('alert').filter({ hasText: 'changed on disk' })
    await banner.waitFor({ timeout: 20_000 })
    await shoot('05-conflict')
    await banner.getByRole('button', { name: 'See the difference' }).click()
    const dialog = page.getByRole('dialog', { name: 'Your edits against the plan on disk' })
    await dialog.locator('.monaco-diff-editor').waitFor({ timeout: 20_000 })
    await shoot('06-conflict-diff')
    await dialog.getByRole('button', { name: 'Reload' }).click()
    await viewLine('one line, louder').waitFor()
    await banner.waitFor({ state: 'detached' })
    // A valid edit saves at once with the Save button, no confirmation; then the plan goes back as the task left it.
    await viewLine('one line, louder').click()
    await page.keyboard.press('End')
    await page.keyboard.type(' ')
    // Save turns on once the edit has landed in the buffer.
    const save = page.getByRole('button', { name: 'Save' })
    await expect.poll(() => save.getAttribute('aria-disabled')).toBeNull()
    await save.click()
    await expect
      .poll(() => readFileSync(file('.ralph/plan.tsx'), 'utf8'), { timeout: 15_000 })
      .toContain('louder" /> \n')
    expect(await page.getByRole('alertdialog').count()).toBe(0)
    writeFileSync(file('.ralph/plan.tsx'), planV2)
    await viewLine('one line, loud"').waitFor({ timeout: 20_000 })
  })

  it('reviews the plan diff from task-2-pre to task-2-post: features changed with its ADD, store unchanged', async () => {
    await page.getByRole('button', { name: 'Plan diff' }).click()
    const from = page.getByRole('combobox', { name: 'From' })
    const to = page.getByRole('combobox', { name: 'To' })
    await expect.poll(() => from.inputValue(), { timeout: 20_000 }).toBe('task-2-pre')
    expect(await to.inputValue()).toBe('task-2-post')
    expect(await to.locator('option', { hasText: 'Working copy' }).count()).toBe(1)
    const changes = page.getByRole('list', { name: 'Section changes' })
    const features = changes.getByRole('listitem', { name: /^landing › features, changed, ADD marker added/ })
    await features.waitFor({ timeout: 20_000 })
    expect(await features.textContent()).toContain('cols')
    await changes
      .getByRole('listitem', { name: /^screen store, unchanged, NO CHANGES marker added/ })
      .waitFor()
    const verdicts = page.getByRole('list', { name: 'Plan against implementation' })
    const featureVerdict = verdicts.getByRole('listitem', { name: /^landing › features/ })
    expect(await featureVerdict.textContent()).toContain('8 → 10')
    await shoot('07-diff-structure')

    await features.getByRole('button').first().click()
    await page.getByTestId('plan-diff-text').locator('.monaco-diff-editor').waitFor({ timeout: 20_000 })
    expect(await page.getByRole('radio', { name: 'Text' }).getAttribute('aria-checked')).toBe('true')
    await page
      .getByTestId('plan-diff-text')
      .locator('.line-insert, .char-insert')
      .first()
      .waitFor({ timeout: 20_000 })
    await shoot('08-diff-text')
    await page.getByRole('radio', { name: 'Structure' }).click()
  })

  it('opens a task’s plan changes from its card', async () => {
    await page.getByRole('button', { name: 'Exit full width' }).click()
    const card = log().getByRole('article', { name: 'Task 1: VIBRANT ENERGY landing page' })
    await card.getByRole('button', { name: 'Review plan changes' }).click()
    const from = page.getByRole('combobox', { name: 'From' })
    await expect.poll(() => from.inputValue(), { timeout: 20_000 }).toBe('task-1-pre')
    expect(await page.getByRole('combobox', { name: 'To' }).inputValue()).toBe('task-1-post')
    const changes = page.getByRole('list', { name: 'Section changes' })
    await changes.getByRole('listitem', { name: /^screen landing, added/ }).waitFor({ timeout: 20_000 })
    await shoot('09-task-card-diff')
    await page.getByRole('button', { name: 'Back to the editor' }).click()
  })

  it('is read-only while a task runs and shows the loop’s write', async () => {
    llm.enqueue(
      {
        kind: 'json',
        value: {
          type: 'mutation',
          title: 'Add a FAQ',
          requirements: [{ marker: 'ADD', description: 'a FAQ section', count: null }],
          scope: { preserve: [], affectedFiles: ['src/components/Faq.tsx'] },
          clarification: null,
        },
      },
      {
        kind: 'tools',
        calls: [
          {
            name: 'write_file',
            arguments: {
              path: '.ralph/plan.tsx',
              content: planV1.replace(
                '<Section gumdrop="cta"',
                `<Section gumdrop="faq" files={['src/components/Faq.tsx']}>\n          {/* TASK-3 [ADD]: a FAQ section */}\n        </Section>\n\n        <Section gumdrop="cta"`,
              ),
            },
          },
        ],
      },
      { kind: 'stall', text: 'Thinking about the questions people ask' },
    )
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('add a FAQ')
    await box.press('Control+Enter')
    await page.getByTestId('plan-read-only').waitFor({ timeout: 30_000 })
    await viewLine('TASK-3 [ADD]: a FAQ section').waitFor({ timeout: 30_000 })
    await editor().locator('.plan-marker-add').first().waitFor()
    expect(await page.getByRole('button', { name: 'Save' }).getAttribute('aria-disabled')).toBe('true')
    // Typing changes nothing: Monaco refuses edits in a read-only editor.
    await viewLine('TASK-3 [ADD]').click()
    await page.keyboard.type('xyz')
    expect(await viewLine('xyz').count()).toBe(0)
    await shoot('10-read-only')
    await page.getByRole('button', { name: 'Stop' }).click()
    await log()
      .getByRole('article', { name: 'Task 3: Add a FAQ' })
      .getByText('Stopped', { exact: true })
      .waitFor({ timeout: 30_000 })
    await page.getByTestId('plan-read-only').waitFor({ state: 'detached', timeout: 20_000 })
  })
})
