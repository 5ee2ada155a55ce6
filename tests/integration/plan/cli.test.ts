import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { main } from '../../../src/main/cli/main'

const examples = join(import.meta.dirname, '../../../resources/plan/examples')
let dir: string

async function ralph(args: string[], json = false) {
  let out = ''
  let err = ''
  const sink = (f: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, cb) {
        f(String(chunk))
        cb()
      },
    })
  const code = await main(['plan', ...args, '--project', dir, ...(json ? ['--json'] : [])], {
    cwd: dir,
    env: {},
    stdout: sink((s) => (out += s)),
    stderr: sink((s) => (err += s)),
    signal: new AbortController().signal,
  })
  return { code, out, err }
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ralph-plan-cli-'))
  await mkdir(join(dir, '.ralph'), { recursive: true })
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('ralph plan', () => {
  it('validate: exit 0 for a valid plan, 4 with findings for an invalid one', async () => {
    await copyFile(join(examples, 'crud-app.tsx'), join(dir, '.ralph/plan.tsx'))
    const ok = await ralph(['validate'])
    expect(ok.code).toBe(0)
    expect(ok.out).toMatch(/Plan valid/)

    await copyFile(join(examples, 'every-failure.tsx'), join(dir, '.ralph/plan.tsx'))
    await writeFile(join(dir, '.ralph/task-counter.txt'), '3\n')
    const bad = await ralph(['validate'])
    expect(bad.code).toBe(4)
    expect(bad.out).toMatch(/\.ralph\/plan\.tsx:12:10 {2}failure {2}known-components/)
    const json = await ralph(['validate'], true)
    expect(json.code).toBe(4)
    const parsed = JSON.parse(json.out)
    expect(parsed).toMatchObject({ ok: false, valid: false, taskNumber: 3 })
    expect(new Set(parsed.findings.map((f: { rule: string }) => f.rule))).toEqual(
      new Set([
        'required-props',
        'valid-markers',
        'sections-have-gumdrops',
        'known-components',
        'no-empty-screens',
        'schema-endpoint-match',
        'has-theme',
        'missing-nav',
        'low-diversity',
        'adjacent-grids',
        'section-files-missing',
      ]),
    )
    await writeFile(join(dir, '.ralph/gumdrops.json'), JSON.stringify(['hero', 'grid-list', 'cta']))
    expect((await ralph(['validate'])).out).toMatch(/valid-gumdrops .*Did you mean "grid-list"/)
  })

  it('validate --file, and a missing plan', async () => {
    expect((await ralph(['validate', '--file', join(examples, 'syntax-error.tsx')])).out).toMatch(
      /failure {2}parseable/,
    )
    const missing = await ralph(['validate'])
    expect(missing.code).toBe(4)
    expect(missing.err).toMatch(/no plan file/)
  })

  it('show prints the tree and markers; --json gives one object', async () => {
    await copyFile(join(examples, 'landing-after-task-3.tsx'), join(dir, '.ralph/plan.tsx'))
    const r = await ralph(['show'])
    expect(r.code).toBe(0)
    expect(r.out).toContain('<Section gumdrop="features" cols=5')
    expect(r.out).toContain('/* TASK-3 [ADD]: 2 nighttime drink flavors (Moonlit Calm, Deep Rest) */')
    const j = JSON.parse((await ralph(['show'], true)).out)
    expect(j.root.tag).toBe('App')
    expect(j.sections.map((s: { gumdrop: string }) => s.gumdrop)).toEqual([
      'hero',
      'features',
      'cta',
      'grid-list',
    ])
  })

  it('diff --against and --before-dir run the plan diff and the gates', async () => {
    await copyFile(join(examples, 'landing-after-task-3.tsx'), join(dir, '.ralph/plan.tsx'))
    const d = await ralph(['diff', '--against', join(examples, 'landing-before-task-3.tsx')])
    expect(d.code).toBe(0)
    expect(d.out).toContain('cols: 4 → 5')

    const pre = join(dir, '..', `${dir.split('/').pop()}-pre`)
    await mkdir(join(pre, 'src/data'), { recursive: true })
    await mkdir(join(dir, 'src/data'), { recursive: true })
    const flavors = (n: string[]) =>
      `export const flavors = [${n.map((x) => `{ name: '${x}' }`).join(', ')}]\n`
    await writeFile(join(pre, 'src/data/flavors.ts'), flavors(['A', 'B', 'C', 'D']))
    await writeFile(join(dir, 'src/data/flavors.ts'), flavors(['A', 'B', 'X', 'Y']))
    const g = await ralph(['diff', '--before-dir', pre, '--task', '3'], true)
    await rm(pre, { recursive: true, force: true })
    expect(g.code).toBe(4)
    const j = JSON.parse(g.out)
    expect(j.gates.find((x: { gate: string }) => x.gate === 'scope-add')).toMatchObject({
      severity: 'failure',
    })
  })

  it('usage errors exit 2', async () => {
    expect((await ralph([])).code).toBe(2)
    expect((await ralph(['frobnicate'])).code).toBe(2)
    expect((await ralph(['diff'])).code).toBe(2)
    expect((await ralph(['validate', '--task', 'x'])).code).toBe(2)
    const j = await ralph(['validate', '--bogus'], true)
    expect(JSON.parse(j.out)).toMatchObject({ ok: false, error: { kind: 'invalid-input' } })
  })
})
