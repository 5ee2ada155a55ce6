import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { StructuredTask } from '../../shared/task'
import { removeDir, tempDir } from '../tools/testkit'
import { buildIterationPrompt } from './context'
import { clipLines, PLAN_PROMPT_CHARS, planForPrompt, tailChars } from '../plan'
import { RalphState } from './ralphState'

/** A plan of `n` sections of about 370 characters each (19,000 make a 7 MB plan). */
export function largePlan(n: number): string {
  const sections = Array.from(
    { length: n },
    (_, i) =>
      `      <Section gumdrop="s${i}" files={['src/s${i}.ts']}>\n` +
      `        {/* Section ${i}: ${'lorem ipsum '.repeat(20)}*/}\n        <Gumdrop use="card" />\n      </Section>`,
  ).join('\n')
  return `export default (\n  <App name="BIG">\n    <Screen name="landing">\n      <Content>\n${sections}\n      </Content>\n    </Screen>\n  </App>\n)\n`
}

const task: StructuredTask = {
  type: 'mutation',
  title: 'Touch s777',
  requirements: [{ marker: 'MODIFY', description: 'change the s777 card', count: null }],
  scope: { preserve: [], affectedFiles: ['src/s777.ts'] },
  clarification: null,
}

describe('planForPrompt', () => {
  it('gives a small plan whole', () => {
    const plan = largePlan(3)
    expect(planForPrompt(plan)).toBe(plan.trim())
  })

  it('bounds a large plan: the affected section in full, an outline, and a note on what was left out', () => {
    const plan = largePlan(5_000)
    const out = planForPrompt(plan, { task, taskNumber: 1 })
    expect(out.length).toBeLessThan(PLAN_PROMPT_CHARS + 1_000)
    expect(out).toContain('Sections this task most likely affects (1, in full):')
    expect(out).toContain(`<Section gumdrop="s777" files={['src/s777.ts']}>`)
    expect(out).toMatch(
      /Outline \(\d+ of 5000 sections, in file order\):\n- lines 5-8 {2}landing › s0 {2}files: src\/s0\.ts/,
    )
    expect(out).toMatch(
      /\[\.ralph\/plan\.tsx is \d+ characters in 20009 lines, more than the 28000 a prompt holds\. Left out: the full text of 4999 section\(s\), and the outline of the last \d+ \(from line \d+\)\. Read any part with read_file \{path: "\.ralph\/plan\.tsx", offset: <first line>, limit: 200\}/,
    )
  })

  it('shows the first lines of a plan that does not parse, and one long line cut', () => {
    const broken = `export default (\n  <App name="x">\n${'  <Section oops\n'.repeat(5_000)}`
    const out = planForPrompt(broken, { max: 2_000 })
    expect(out.length).toBeLessThan(2_500)
    expect(out).toMatch(
      /shown are lines 1-\d+ \(the plan does not parse, so no outline\)\. Read any part with read_file \{path: "\.ralph\/plan\.tsx", offset: \d+, limit: 200\}/,
    )
    const minified = planForPrompt('x'.repeat(50_000), { max: 1_000 })
    expect(minified.length).toBeLessThan(1_500)
    expect(minified).toContain('shown is the start of line 1')
  })

  it('clipLines and tailChars say what they left out', () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n')
    expect(clipLines(text, 30, 'why')).toBe('line 0\nline 1\nline 2\nline 3\n… (96 more lines left out: why)')
    expect(tailChars(text, 16, 'earlier text')).toMatch(
      /^… \(earlier text left out: \d+ characters; .*\)\nline 98\nline 99$/,
    )
  })
})

describe('buildIterationPrompt with a 7 MB plan and long harness files', () => {
  let root: string
  beforeEach(() => {
    root = tempDir()
    mkdirSync(join(root, '.ralph'))
    writeFileSync(join(root, '.ralph/plan.tsx'), largePlan(19_000))
    writeFileSync(join(root, '.ralph/progress.md'), 'checkpoint\n'.repeat(100_000))
    writeFileSync(join(root, '.ralph/feedback.md'), 'feedback '.repeat(100_000))
    writeFileSync(join(root, '.ralph/task-history.md'), `${'- task: '.padEnd(100_000, 'x')}\n`.repeat(30))
    writeFileSync(join(root, '.ralph/task.md'), 'task '.repeat(100_000))
  })
  afterEach(() => removeDir(root))

  it('stays within its stated bound in the PLAN phase of a mutation (the affected-sections hint included)', async () => {
    const p = await buildIterationPrompt({
      state: new RalphState(root),
      taskNumber: 1,
      task,
      phase: 'plan',
      iteration: 1,
      maxIterations: 5,
    })
    expect(p.system.length).toBeLessThan(20_000)
    expect(p.system).toContain('more lines left out: the plan outline in the message lists every section')
    // Task 60,000 + plan 28,000 + feedback 20,000 + progress 12,000 + history 6,000 + file list 24,000, and text.
    expect(p.user.length).toBeLessThan(155_000)
    expect(p.user).toContain('Read any part with read_file {path: ".ralph/plan.tsx"')
    expect(p.user).toContain('earlier history left out')
    expect(p.user).toContain('earlier checkpoints left out')
  })
})
