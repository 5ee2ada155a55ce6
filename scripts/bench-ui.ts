// npm run bench:ui — the plan editor's rows (issue 14), in Chromium against the real `npm run web`:
//   - a 3,000-line plan opens (text shown, then decorated) ≤ 500 ms after Monaco's chunk is cached;
//   - decorations and problems update ≤ 150 ms after the debounce fires;
//   - the structural diff of two 3,000-line plans ≤ 100 ms (in Node, where the API runs it).
// Then the chat's rows (scripts/bench-ui-chat.ts) and the timeline's (scripts/bench-ui-timeline.ts).
// Prints a table of medians and writes JSON under bench-results/.
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parsePlan } from '../src/main/plan'
import { structuralDiff } from '../src/main/plan/structuralDiff'
import { launchChromium } from '../tests/helpers/browser'
import { chatRows, coreResponsiveness } from './bench-ui-chat'
import { timelineRows } from './bench-ui-timeline'
import { makeTempDir } from '../tests/helpers/tempDir'
import { callApi, startWebHost } from '../tests/helpers/webHost'

const OPEN_RUNS = 10
const TYPE_RUNS = 10
const DIFF_RUNS = 30

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2
}
const max = (xs: number[]) => Math.max(...xs)

/** A plan of about `lines` lines: screens of marked sections with children. `variant` reorders and edits some. */
function bigPlan(lines: number, variant = false): string {
  const out = [
    "import { App, Theme, Rule, Screen, Nav, NavItem, Content, Section, Gumdrop, Field, Slot } from 'ralph-plan'",
    '',
    'export default (',
    '  <App name="Bench" description="A large plan">',
    '    <Theme mood="calm" seed={200} pattern="analogous">',
    '      <Rule no="hardcoded colors" />',
    '    </Theme>',
  ]
  const gumdrops = ['hero', 'features', 'cta', 'form-layout', 'testimonials', 'faq']
  let section = 0
  for (let screen = 0; out.length < lines - 4; screen++) {
    out.push(`    <Screen name="screen-${screen}">`, '      <Nav>')
    out.push(`        <NavItem label="S${screen}" to="/${screen}" />`, '      </Nav>', '      <Content>')
    const block: string[][] = []
    for (let i = 0; i < 10 && out.length + block.flat().length < lines - 8; i++, section++) {
      const g = gumdrops[section % gumdrops.length]
      const cols = variant && section % 7 === 0 ? 4 : 3
      const lines = [
        `        <Section gumdrop="${g}" cols={${cols}} files={['src/sections/S${section}.tsx']}>`,
      ]
      if (section % 5 === 0)
        lines.push('          {/* TASK-7 [ADD]: 2 cards */}', '          {/* PRESERVED — keep them */}')
      if (section % 5 === 2) lines.push('          {/* NO CHANGES for task-7 */}')
      if (variant && section % 11 === 0) lines.push('          {/* TASK-7 [MODIFY]: sharper copy */}')
      lines.push(
        `          <Gumdrop use="card" variant="v${section}" />`,
        `          <Field name="f${section}" type="text" />`,
        `          <Slot name="s${section}" description="slot ${section}" />`,
        '        </Section>',
      )
      block.push(lines)
    }
    // The variant moves each screen's last section to the top.
    if (variant && block.length > 1) block.unshift(block.pop()!)
    out.push(...block.flat(), '      </Content>', '    </Screen>')
  }
  out.push('  </App>', ')', '')
  return out.join('\n')
}

async function main() {
  const rows: { name: string; median: number; max: number; target: number; runs: number; unit: string }[] = []
  const row = (name: string, xs: number[], target: number, unit = 'ms') =>
    rows.push({ name, median: median(xs), max: max(xs), target, runs: xs.length, unit })

  // The structural diff, as plan.compare runs it.
  const a = bigPlan(3000)
  const b = bigPlan(3000, true)
  const pa = parsePlan(a)
  const pb = parsePlan(b)
  structuralDiff(pa, pb)
  const diffTimes: number[] = []
  const parseDiffTimes: number[] = []
  for (let i = 0; i < DIFF_RUNS; i++) {
    let t = performance.now()
    structuralDiff(pa, pb)
    diffTimes.push(performance.now() - t)
    t = performance.now()
    structuralDiff(parsePlan(a), parsePlan(b))
    parseDiffTimes.push(performance.now() - t)
  }
  row('structural diff, two 3,000-line plans', diffTimes, 100)
  row('  the same with both parses', parseDiffTimes, 100)

  // The editor in Chromium.
  const home = makeTempDir('ralph-bench-home-')
  const work = makeTempDir('ralph-bench-work-')
  const project = join(work.path, 'bench')
  mkdirSync(join(project, '.ralph'), { recursive: true })
  writeFileSync(join(project, '.ralph', 'plan.tsx'), a)
  const host = await startWebHost({ RALPH_HOME: home.path })
  const browser = await launchChromium()
  try {
    const opened = await callApi(host, 'projects.open', { path: project })
    if (!opened.ok) throw new Error(JSON.stringify(opened))
    // Task 7 is under way: the marker hints count the marked sections' files at task-7-pre, as the gates will.
    for (let i = 0; i < 120; i++) {
      mkdirSync(join(project, 'src', 'sections'), { recursive: true })
      writeFileSync(
        join(project, 'src', 'sections', `S${i}.tsx`),
        `export const cards = [${Array.from({ length: 8 }, (_, k) => `{ title: 'c${k}' }`).join(', ')}]\n`,
      )
    }
    writeFileSync(join(project, '.ralph', 'task-counter.txt'), '7\n')
    const pre = await callApi(host, 'snapshots.save', {
      projectId: opened.value.id,
      kind: 'task-pre',
      task: 7,
    })
    if (!pre.ok) throw new Error(JSON.stringify(pre))
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(host.url)
    await page.waitForURL(`${host.origin}/`)
    await page.goto(`${host.origin}/#/project/${opened.value.id}?panel=plan`)
    // The first open fetches Monaco's chunk and workers; every later one finds them cached.
    await page.locator('.plan-glyph').first().waitFor({ timeout: 60_000 })

    const openText: number[] = []
    const openDecorated: number[] = []
    for (let i = 0; i < OPEN_RUNS; i++) {
      await page.getByRole('tab', { name: 'Timeline' }).click()
      await page.getByTestId('plan-panel').waitFor({ state: 'detached' })
      const [text, decorated] = (await page.evaluate(`new Promise((resolve) => {
        const tab = [...document.querySelectorAll('[role=tab]')].find((t) => t.textContent.includes('Plan'))
        const t0 = performance.now()
        let text = null
        // Radix tabs select on mousedown.
        tab.dispatchEvent(new MouseEvent('mousedown', { bubbles: true, button: 0 }))
        tab.click()
        const check = () => {
          const now = performance.now() - t0
          if (text === null && document.querySelector('[data-testid=plan-monaco] .view-line')) text = now
          if (text !== null && document.querySelector('.plan-glyph')) resolve([text, now])
          else requestAnimationFrame(check)
        }
        check()
      })`)) as [number, number]
      openText.push(text)
      openDecorated.push(decorated)
    }
    row('3,000-line plan opens: text shown', openText, 500)
    row('3,000-line plan opens: markers decorated', openDecorated, 500)

    // Typing: from the debounce firing to decorations and problems applied (performance marks in the editor).
    await page.locator('[data-testid=plan-monaco] .view-line').nth(5).click()
    await page.evaluate('performance.clearMeasures("plan-analyze")')
    const serverTimes: number[] = []
    page.on('requestfinished', (r) => {
      if (r.url().endsWith('/plan.analyze'))
        serverTimes.push(r.timing().responseEnd - r.timing().requestStart)
    })
    for (let i = 0; i < TYPE_RUNS; i++) {
      await page.keyboard.press('End')
      await page.keyboard.type(i % 2 ? '\n' : ' ')
      // Polled inside the page (the app's CSP forbids the string predicates waitForFunction compiles).
      await page.evaluate(`new Promise((resolve) => {
        const check = () =>
          performance.getEntriesByName('plan-analyze').length >= ${i + 1} ? resolve(null) : setTimeout(check, 10)
        check()
      })`)
    }
    const updates = (await page.evaluate(
      'performance.getEntriesByName("plan-analyze").map((e) => e.duration)',
    )) as number[]
    row('decorations + problems after the debounce', updates, 150)
    row('  of which the plan.analyze request', serverTimes, 150)
    await page.close()
    await chatRows(browser, row)
    await timelineRows(browser, row)
  } finally {
    await browser.close()
    await host.stop()
    home.cleanup()
    work.cleanup()
  }
  await coreResponsiveness(row)

  console.log(`\nbench:ui — ${cpus().length} CPUs, ${cpus()[0]?.model ?? ''}`)
  console.log('row'.padEnd(72), 'median'.padStart(10), 'max'.padStart(10), 'target'.padStart(9), '  ok')
  for (const r of rows) {
    console.log(
      r.name.padEnd(72),
      `${r.median.toFixed(1)} ${r.unit}`.padStart(10),
      `${r.max.toFixed(1)} ${r.unit}`.padStart(10),
      `${r.target} ${r.unit}`.padStart(9),
      r.median <= r.target ? '  yes' : '  NO',
    )
  }
  mkdirSync('bench-results', { recursive: true })
  const file = join('bench-results', `ui-${Date.now()}.json`)
  writeFileSync(file, JSON.stringify({ when: new Date().toISOString(), cpus: cpus().length, rows }, null, 2))
  console.log(`\nwrote ${file}`)
}

await main()
