// npm run bench:plan — parse + validate a 3,000-line plan, and run the scope gates over 20 sections whose files
// total 5,000 lines. Prints a table of medians and writes JSON under bench-results/.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { cpus, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parsePlan, planDiffGate, runScopeGates, validatePlan, workingTreeSource } from '../src/main/plan'

const RUNS = 30
const TARGET_PARSE_VALIDATE_MS = 50
const TARGET_GATES_MS = 150

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2
}

/** A plan of about `lines` lines: many screens of marked sections with children. */
function bigPlan(lines: number, gatedSections: number): string {
  const out: string[] = [
    "import { App, Theme, Screen, Nav, NavItem, Content, Section, Gumdrop, Field, Slot } from 'ralph-plan'",
    '',
    'export default (',
    '  <App name="Bench" description="A large plan">',
    '    <Theme mood="calm" seed={200} pattern="analogous">',
    '      <Rule no="hardcoded colors" />',
    '    </Theme>',
  ]
  const gumdrops = ['hero', 'features', 'cta', 'form-layout', 'testimonials', 'faq']
  let section = 0
  let screen = 0
  while (out.length < lines - 4) {
    out.push(
      `    <Screen name="screen-${screen}">`,
      '      <Nav>',
      `        <NavItem label="S${screen}" to="/${screen}" />`,
      '      </Nav>',
      '      <Content>',
    )
    for (let i = 0; i < 10 && out.length < lines - 8; i++, section++) {
      const g = gumdrops[section % gumdrops.length]
      out.push(`        <Section gumdrop="${g}" files={['src/sections/S${section}.tsx']}>`)
      if (section < gatedSections) {
        out.push(
          section % 2 === 0
            ? '          {/* TASK-7 [ADD]: 2 cards */}'
            : '          {/* NO CHANGES for task-7 */}',
          '          {/* PRESERVED — do not remove or convert */}',
        )
      } else out.push(`          {/* Section ${section}: unchanged for now */}`)
      out.push(
        `          <Gumdrop use="${g}" variant="v${section}" label="Part ${section}" />`,
        `          <Field name="f${section}" type="text" required />`,
        `          <Slot name="slot${section}" description="text for ${section}" />`,
        '        </Section>',
      )
    }
    out.push('      </Content>', '    </Screen>')
    screen++
  }
  out.push('  </App>', ')', '')
  return out.join('\n')
}

/** A section file of `lines` lines: an array of card objects rendered with .map(). */
function sectionFile(index: number, lines: number, items: number): string {
  const head = [`export const cards${index} = [`]
  for (let i = 0; i < items; i++) {
    head.push(
      `  {`,
      `    name: 'Card ${index}-${i}',`,
      `    body: 'Text for card ${i}',`,
      `    tone: '${i % 3}',`,
      `  },`,
    )
  }
  head.push(']', '', `export function Section${index}() {`, '  return (', '    <section>')
  while (head.length < lines - 5)
    head.push(`      <p className="note">Line ${head.length} of section ${index}</p>`)
  head.push(
    `      {cards${index}.map((c) => <article key={c.name}>{c.body}</article>)}`,
    '    </section>',
    '  )',
    '}',
    '',
  )
  return head.join('\n')
}

async function main(): Promise<void> {
  const planText = bigPlan(3000, 20)
  const planLines = planText.split('\n').length

  const root = await mkdtemp(join(tmpdir(), 'ralph-bench-plan-'))
  const before = join(root, 'before')
  const now = join(root, 'now')
  let fileLines = 0
  for (let i = 0; i < 20; i++) {
    const rel = `src/sections/S${i}.tsx`
    const pre = sectionFile(i, 250, 40)
    const post = i % 2 === 0 ? sectionFile(i, 250, 42) : pre
    fileLines += post.split('\n').length
    for (const [dir, text] of [
      [before, pre],
      [now, post],
    ] as const) {
      await mkdir(dirname(join(dir, rel)), { recursive: true })
      await writeFile(join(dir, rel), text)
    }
  }

  try {
    const parseValidate: number[] = []
    let findings = 0
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now()
      const r = validatePlan(parsePlan(planText), { taskNumber: 7, gumdrops: null, fileExists: () => true })
      parseValidate.push(performance.now() - t0)
      findings = r.findings.length
    }
    const plan = parsePlan(planText)
    const gates: number[] = []
    let results = 0
    let failures = 0
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now()
      const src = { before: workingTreeSource(before), now: workingTreeSource(now) }
      const r = [
        ...(await runScopeGates({ plan, task: 7, ...src })),
        ...(await planDiffGate({ plan, task: 7, ...src })),
      ]
      gates.push(performance.now() - t0)
      results = r.length
      failures = r.filter((g) => g.severity === 'failure').length
    }

    const rows = [
      {
        name: 'parse + validate',
        median: median(parseValidate),
        target: TARGET_PARSE_VALIDATE_MS,
        detail: `${planLines} plan lines, ${findings} findings`,
      },
      {
        name: 'scope gates (all)',
        median: median(gates),
        target: TARGET_GATES_MS,
        detail: `20 sections, ${fileLines} file lines, ${results} results, ${failures} failures`,
      },
    ]
    const result = {
      benchmark: 'plan',
      date: new Date().toISOString(),
      node: process.version,
      cpu: cpus()[0]?.model ?? 'unknown',
      runs: RUNS,
      results: rows.map((r) => ({ ...r, medianMs: Number(r.median.toFixed(2)), ok: r.median <= r.target })),
    }
    await mkdir('bench-results', { recursive: true })
    const out = join('bench-results', 'plan.json')
    await writeFile(out, `${JSON.stringify(result, null, 2)}\n`)

    console.log(`plan benchmark (median of ${RUNS} runs, ${result.cpu})`)
    console.log('| case | median ms | target ms | ok | detail |')
    console.log('|---|---:|---:|---|---|')
    for (const r of result.results) {
      console.log(
        `| ${r.name} | ${r.medianMs.toFixed(2)} | ${r.target} | ${r.ok ? 'yes' : 'NO'} | ${r.detail} |`,
      )
    }
    console.log(`wrote ${out}`)
    if (result.results.some((r) => !r.ok)) process.exitCode = 1
  } finally {
    await rm(root, { recursive: true, force: true })
  }
}

await main()
