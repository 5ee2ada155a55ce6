// The seed's VIBRANT ENERGY cases (seed 000 §7), on real project folders: "before" is a copy of the project at
// task-3-pre, "now" is the working tree. The snapshot engine's `show` will stand in for the before folder.
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  parsePlan,
  planDiffGate,
  runScopeGates,
  workingTreeSource,
  type GateResult,
} from '../../../src/main/plan'

const examples = join(import.meta.dirname, '../../../resources/plan/examples')
const eight = ['Volt', 'Surge', 'Nitro', 'Blaze', 'Frost', 'Pulse', 'Rush', 'Spark']

const flavorsFile = (names: string[]) =>
  `export const flavors = [\n${names.map((n) => `  { name: '${n}', tagline: 'Charge up with ${n}' },`).join('\n')}\n]\n`

const grid = `import { flavors } from '../data/flavors'
export function FlavorGrid() {
  return <div className="grid grid-cols-5">{flavors.map((f) => <article key={f.name}>{f.tagline}</article>)}</div>
}
`

const baseFiles: Record<string, string> = {
  'src/data/flavors.ts': flavorsFile(eight),
  'src/components/FlavorGrid.tsx': grid,
  'src/components/Hero.tsx': 'export const Hero = () => <h1>UNLEASH THE BEAST</h1>\n',
  'src/components/Cta.tsx': 'export const Cta = () => <button>BUY NOW!!!</button>\n',
  'src/pages/Store.tsx': 'export const Store = () => <main>store</main>\n',
}

let root: string
let before: string
let now: string

async function writeTree(dir: string, files: Record<string, string>) {
  for (const [p, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, p)), { recursive: true })
    await writeFile(join(dir, p), text)
  }
}

async function gates(changes: Record<string, string | null>): Promise<GateResult[]> {
  await writeTree(before, baseFiles)
  const current = { ...baseFiles }
  for (const [p, t] of Object.entries(changes)) {
    if (t === null) delete current[p]
    else current[p] = t
  }
  await writeTree(now, current)
  const plan = parsePlan(await readFile(join(examples, 'landing-after-task-3.tsx'), 'utf8'))
  const beforePlan = parsePlan(await readFile(join(examples, 'landing-before-task-3.tsx'), 'utf8'))
  return runScopeGates({
    plan,
    beforePlan,
    task: 3,
    before: workingTreeSource(before),
    now: workingTreeSource(now),
  })
}

const bad = (r: GateResult[]) => r.filter((g) => g.severity !== 'pass')
const of = (r: GateResult[], gate: string) => r.filter((g) => g.gate === gate)

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ralph-plan-gates-'))
  before = join(root, 'before')
  now = join(root, 'now')
})
afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

describe('scope gates on the VIBRANT ENERGY plan (task 3)', () => {
  const copy = {
    'src/components/Hero.tsx': 'export const Hero = () => <h1>Energy for the long night shift</h1>\n',
    'src/components/Cta.tsx': 'export const Cta = () => <button>Find your flavor</button>\n',
  }

  it('plan says [ADD] 2 and the implementation adds 2 → pass', async () => {
    const r = await gates({
      ...copy,
      'src/data/flavors.ts': flavorsFile([...eight, 'Moonlit Calm', 'Deep Rest']),
    })
    expect(bad(r)).toEqual([])
    expect(of(r, 'scope-add')[0]).toMatchObject({ severity: 'pass', file: 'src/data/flavors.ts' })
    expect(of(r, 'scope-add')[0]?.message).toMatch(/2 new flavors: 8 → 10/)
    expect(of(r, 'scope-preserved')[0]?.severity).toBe('pass')
    expect(of(r, 'scope-no-changes')[0]?.severity).toBe('pass')
    expect(of(r, 'scope-modify').map((g) => g.severity)).toEqual(['pass', 'pass'])
  })

  it('converts 4 (count unchanged) → ADD fails', async () => {
    const converted = [...eight.slice(0, 4), 'Moonlit Calm', 'Deep Rest', 'Night Owl', 'Dusk']
    const r = await gates({ ...copy, 'src/data/flavors.ts': flavorsFile(converted) })
    const add = of(r, 'scope-add')[0]
    expect(add).toMatchObject({
      severity: 'failure',
      file: 'src/data/flavors.ts',
      section: 'landing › features (line 28)',
    })
    expect(add?.message).toMatch(/^ADD marker specified 2 new flavors; count unchanged \(8\)/)
    expect(of(r, 'scope-preserved')[0]?.severity).toBe('failure')
  })

  it('converts 4 and adds 2 (count right, 4 originals gone) → PRESERVED fails', async () => {
    const names = [
      ...eight.slice(0, 4),
      'Moonlit Calm',
      'Deep Rest',
      'Night Owl',
      'Dusk',
      'Midnight',
      'Ember',
    ]
    const r = await gates({ ...copy, 'src/data/flavors.ts': flavorsFile(names) })
    expect(of(r, 'scope-add')[0]?.severity).toBe('pass')
    const p = of(r, 'scope-preserved')[0]
    expect(p?.severity).toBe('failure')
    expect(p?.message).toMatch(
      /PRESERVED violation: 4 of the 8 pre-task flavors are gone or were converted \(Frost, Pulse, Rush, Spark\)/,
    )
  })

  it('removes items → PRESERVED fails, naming what was removed', async () => {
    const r = await gates({
      ...copy,
      'src/data/flavors.ts': flavorsFile(eight.filter((n) => n !== 'Volt' && n !== 'Surge')),
    })
    const p = of(r, 'scope-preserved')[0]
    expect(p?.severity).toBe('failure')
    expect(p?.message).toMatch(/^PRESERVED violation: had 8 flavors, now 6 \(removed: Volt, Surge\)/)
    expect(of(r, 'scope-add')[0]?.severity).toBe('failure')
  })

  it('adds a different number → ADD warns with expected and found', async () => {
    const r = await gates({ ...copy, 'src/data/flavors.ts': flavorsFile([...eight, 'A', 'B', 'C', 'D']) })
    expect(of(r, 'scope-add')[0]).toMatchObject({
      severity: 'warning',
      message: 'ADD marker specified 2 new flavors: expected 10, found 12.',
    })
  })

  it('NO CHANGES file touched → warns', async () => {
    const r = await gates({
      ...copy,
      'src/data/flavors.ts': flavorsFile([...eight, 'Moonlit Calm', 'Deep Rest']),
      'src/pages/Store.tsx': 'export const Store = () => <main>new store</main>\n',
    })
    const w = of(r, 'scope-no-changes')
    expect(w).toHaveLength(1)
    expect(w[0]).toMatchObject({
      severity: 'warning',
      file: 'src/pages/Store.tsx',
      section: 'store › grid-list (line 43)',
    })
    expect(w[0]?.message).toMatch(/was modified, but the plan marks its section "NO CHANGES for task-3"/)
    expect(r.filter((g) => g.severity === 'failure')).toEqual([])
  })

  it('a section file that does not parse gives a clear warning, not a crash', async () => {
    const r = await gates({
      ...copy,
      'src/data/flavors.ts': 'export const flavors = [\n  { name: "Volt" ,\n',
    })
    const w = of(r, 'scope-count')
    expect(w[0]).toMatchObject({ severity: 'warning', file: 'src/data/flavors.ts' })
    expect(w[0]?.message).toMatch(/does not parse/)
  })

  it('a file that did not exist at task-N-pre counts from zero', async () => {
    const { 'src/data/flavors.ts': _drop, ...rest } = baseFiles
    await writeTree(before, rest)
    await writeTree(now, { ...rest, 'src/data/flavors.ts': flavorsFile(['Moonlit Calm', 'Deep Rest']) })
    const plan = parsePlan(
      `export default (<App name="x"><Screen name="s"><Content><Section gumdrop="features" files={['src/data/flavors.ts']}>{/* TASK-3 [ADD]: 2 flavors */}</Section></Content></Screen></App>)`,
    )
    const r = await runScopeGates({
      plan,
      task: 3,
      before: workingTreeSource(before),
      now: workingTreeSource(now),
    })
    expect(r).toEqual([
      expect.objectContaining({
        gate: 'scope-add',
        severity: 'pass',
        message: 'ADD marker specified 2 new flavors: 0 → 2.',
      }),
    ])
  })

  it('plan-diff gate: marked sections whose files did not change are reported', async () => {
    await writeTree(before, baseFiles)
    await writeTree(now, { ...baseFiles, 'src/data/flavors.ts': flavorsFile([...eight, 'A', 'B']) })
    const plan = parsePlan(await readFile(join(examples, 'landing-after-task-3.tsx'), 'utf8'))
    const r = await planDiffGate({
      plan,
      task: 3,
      before: workingTreeSource(before),
      now: workingTreeSource(now),
    })
    expect(r.map((g) => [g.section, g.severity])).toEqual([
      ['landing › hero (line 22)', 'warning'],
      ['landing › features (line 28)', 'pass'],
      ['landing › cta (line 34)', 'warning'],
    ])
  })
})
