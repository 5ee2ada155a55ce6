// The snapshot and plan tools against the real snapshot engine (shadow git) and the seed's VIBRANT ENERGY plan.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { executeTool, type ToolContext } from '../../../src/main/tools'
import { makeContext, put, removeDir, tempDir } from '../../../src/main/tools/testkit'

const examples = join(import.meta.dirname, '../../../resources/plan/examples')
const example = (name: string) => readFileSync(join(examples, name), 'utf8')
const eight = ['Volt', 'Surge', 'Nitro', 'Blaze', 'Frost', 'Pulse', 'Rush', 'Spark']
const flavorsFile = (names: string[]) =>
  `export const flavors = [\n${names.map((n) => `  { name: '${n}', tagline: 'Charge up with ${n}' },`).join('\n')}\n]\n`

let root: string
let ctx: ToolContext
const run = (name: string, args: unknown) => executeTool(name, args, ctx)
const read = (rel: string) => readFileSync(join(root, rel), 'utf8')

beforeEach(async () => {
  root = tempDir('ralph-tools-int-')
  ctx = makeContext(root, { taskNumber: 3 })
  put(root, 'src/data/flavors.ts', flavorsFile(eight))
  put(root, 'src/components/FlavorGrid.tsx', 'export const FlavorGrid = () => null\n')
  put(root, 'src/components/Hero.tsx', 'export const Hero = () => <h1>UNLEASH THE BEAST</h1>\n')
  put(root, 'src/components/Cta.tsx', 'export const Cta = () => <button>BUY NOW!!!</button>\n')
  put(root, 'src/pages/Store.tsx', 'export const Store = () => <main>store</main>\n')
  put(root, '.ralph/plan.tsx', example('landing-before-task-3.tsx'))
  put(root, '.ralph/task-counter.txt', '3')
  put(root, '.ralph/status.txt', 'running')
  put(root, '.ralph/phase.txt', 'build')
  await ctx.snapshots.save({ kind: 'task-pre', task: 3 })
})
afterEach(() => removeDir(root))

describe('snapshot tool', () => {
  it('saves, lists, diffs and reports status', async () => {
    put(root, 'src/new.ts', 'export {}\n')
    const saved = await run('snapshot', { action: 'save', message: 'before CTA redesign' })
    expect(saved.ok).toBe(true)
    expect(saved.output).toMatch(/^Saved snapshot manual-\d+ \(commit [0-9a-f]{7}\): \+1 ~0 -0/)

    const list = await run('snapshot', { action: 'list' })
    expect(list.output).toMatch(/2 snapshots \(newest first/)
    expect(list.output).toMatch(/manual-\d+ .* before CTA redesign/)
    expect(list.output).toContain('task-3-pre')

    put(root, 'src/components/Hero.tsx', 'changed\n')
    const diff = await run('snapshot', { action: 'diff' })
    expect(diff.output).toMatch(/Changes from task-3-pre to now: 1 added, 1 modified/)
    expect(diff.output).toContain('A src/new.ts')
    expect(diff.output).toContain('M src/components/Hero.tsx')

    const status = await run('snapshot', { action: 'status' })
    expect(status.output).toMatch(/Current position: manual-/)
    expect(status.output).toContain('Changes since then: 0 added, 1 modified, 0 deleted.')
  })

  it('rolls back the project files but keeps the loop state', async () => {
    put(root, 'src/new.ts', 'export {}\n')
    put(root, 'src/components/Hero.tsx', 'changed\n')
    put(root, '.ralph/status.txt', 'running')
    put(root, '.ralph/phase.txt', 'plan')
    const r = await run('snapshot', { action: 'rollback', target: 'task-3-pre' })
    expect(r.ok).toBe(true)
    expect(r.output).toMatch(/Rolled back to task-3-pre: 1 file\(s\) written, 1 deleted/)
    expect(r.output).toMatch(/safety snapshot safety-\d+/)
    expect(r.changedFiles.sort()).toEqual(['src/components/Hero.tsx', 'src/new.ts'])
    expect(existsSync(join(root, 'src/new.ts'))).toBe(false)
    expect(read('src/components/Hero.tsx')).toContain('UNLEASH')
    expect(read('.ralph/phase.txt')).toBe('plan')
  })

  it('explains unknown tags and missing targets', async () => {
    const r = await run('snapshot', { action: 'rollback', target: 'task-99-pre' })
    expect(r.ok).toBe(false)
    expect(r.output).toMatch(/no snapshot "task-99-pre"/)
    expect((await run('snapshot', { action: 'rollback' })).output).toMatch(/needs a target tag/)
    expect((await run('snapshot', { action: 'diff', target: '--all' })).ok).toBe(false)
    expect((await run('snapshot', { action: 'explode' })).output).toMatch(/Invalid arguments for snapshot/)
  })
})

describe('plan tool', () => {
  it('shows the tree with markers', async () => {
    put(root, '.ralph/plan.tsx', example('landing-after-task-3.tsx'))
    const r = await run('plan', { action: 'show' })
    expect(r.ok).toBe(true)
    expect(r.output).toMatch(/^<App name="VIBRANT ENERGY"/)
    expect(r.output).toContain('TASK-3 [ADD]: 2 nighttime drink flavors')
  })

  it('validates against the current task', async () => {
    put(root, '.ralph/plan.tsx', example('landing-after-task-3.tsx'))
    const ok = await run('plan', { action: 'validate' })
    expect(ok.output).toMatch(/Plan valid/)
    put(root, '.ralph/plan.tsx', example('no-app-root.tsx'))
    const bad = await run('plan', { action: 'validate' })
    expect(bad.ok).toBe(false)
    expect(bad.output).toMatch(/\.ralph\/plan\.tsx:\d+:\d+ {2}failure {2}has-app-root/)
    expect(bad.output).toMatch(/Plan invalid: [1-9]\d* failure/)
  })

  it('diffs against task-N-pre and runs the scope gates: converted instead of added', async () => {
    put(root, '.ralph/plan.tsx', example('landing-after-task-3.tsx'))
    const converted = [...eight.slice(0, 4), 'Moonlit Calm', 'Deep Rest', 'Night Owl', 'Dusk']
    put(root, 'src/data/flavors.ts', flavorsFile(converted))
    const bad = await run('plan', { action: 'diff' })
    expect(bad.ok).toBe(false)
    expect(bad.output).toContain('Plan changes since task-3-pre:')
    expect(bad.output).toMatch(/\+ marker in .*TASK-3 \[ADD\]/)
    expect(bad.output).toMatch(/FAIL {2}scope-add/)

    put(root, 'src/data/flavors.ts', flavorsFile([...eight, 'Moonlit Calm', 'Deep Rest']))
    const good = await run('plan', { action: 'diff' })
    expect(good.output).not.toMatch(/FAIL {2}scope-add/)
    expect(good.output).toMatch(/pass {2}scope-add/)
  })

  it('says when there is no plan yet, or none at task-N-pre', async () => {
    removeDir(join(root, '.ralph/plan.tsx'))
    expect((await run('plan', { action: 'show' })).output).toMatch(/There is no \.ralph\/plan\.tsx yet/)
    const fresh = makeContext(root, { taskNumber: 4 })
    put(root, '.ralph/plan.tsx', example('landing-after-task-3.tsx'))
    await fresh.snapshots.save({ kind: 'task-pre', task: 4 })
    removeDir(join(root, '.ralph/plan.tsx'))
    // plan deleted after the pre-task snapshot: diff needs a current plan
    expect((await executeTool('plan', { action: 'diff' }, fresh)).ok).toBe(false)
  })
})
