import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { planCalls } from '../../shared/api/plan'
import { runCli } from '../../../tests/helpers/cli'
import { SnapshotEngine } from '../snapshots'
import { removeDir, tempProject } from '../snapshots/testkit'
import { comparePlanVersions } from './compare'
import { memoryLogger } from '../workspace/logFile'

const examples = join(import.meta.dirname, '../../../resources/plan/examples')
const example = (name: string) =>
  readFileSync(join(examples, name), 'utf8').replaceAll('TASK-3', 'TASK-1').replaceAll('task-3', 'task-1')
const flavors = (n: number) =>
  `export const flavors = [\n${Array.from({ length: n }, (_, i) => `  { name: 'F${i}' },`).join('\n')}\n]\n`

// The one use case behind the editor's Plan diff and `ralph plan diff --from --to`, against a real snapshot store.
describe('comparePlanVersions', () => {
  let dir: string
  const put = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }

  beforeEach(async () => {
    dir = tempProject('ralph-compare-')
    const engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
    put('.ralph/plan.tsx', example('landing-before-task-3.tsx'))
    put('src/data/flavors.ts', flavors(8))
    put('src/pages/Store.tsx', 'export const Store = 1\n')
    await engine.save({ kind: 'task-pre', task: 1 })
    put('.ralph/plan.tsx', example('landing-after-task-3.tsx'))
    put('src/data/flavors.ts', flavors(10))
    await engine.save({ kind: 'task-post', task: 1 })
  })

  afterEach(() => removeDir(dir))

  it('defaults to the last task’s pre → post, with the structural diff and the gates’ verdicts', async () => {
    const r = await comparePlanVersions(dir, { logger: memoryLogger() })
    expect(planCalls['plan.compare'].output.parse(r)).toBeTruthy()
    expect(r).toMatchObject({ from: 'task-1-pre', to: 'task-1-post', task: 1 })
    const landing = r.diff.nodes.find((n) => n.name === 'landing')!
    const features = landing.children.find((c) => c.name === 'features')!
    expect(features.status).toBe('changed')
    expect(features.markersAdded.map((m) => m.kind)).toEqual(['ADD', 'PRESERVED'])
    expect(r.diff.nodes.find((n) => n.name === 'store')!.status).toBe('unchanged')
    const verdicts = r.implementation.find((s) => s.section.startsWith('landing › features'))!
    expect(verdicts.files).toContainEqual({
      path: 'src/data/flavors.ts',
      changed: true,
      existsBefore: true,
      existsAfter: true,
    })
    expect(verdicts.verdicts.map((v) => `${v.gate} ${v.severity}: ${v.message}`)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^scope-add pass: .*8 → 10/),
        expect.stringMatching(/^scope-preserved pass/),
      ]),
    )
    expect(r.summary).toContain('~ landing › features changed')
  })

  it('compares a tag with the working copy, and refuses unknown tags', async () => {
    put('src/data/flavors.ts', flavors(6))
    const r = await comparePlanVersions(dir, { from: 'task-1-pre', to: 'working', logger: memoryLogger() })
    const verdicts = r.implementation.find((s) => s.section.startsWith('landing › features'))!
    expect(verdicts.verdicts.find((v) => v.gate === 'scope-preserved')).toMatchObject({ severity: 'failure' })
    await expect(
      comparePlanVersions(dir, { from: 'task-9-pre', to: 'working', logger: memoryLogger() }),
    ).rejects.toMatchObject({
      kind: 'not-found',
    })
    await expect(
      comparePlanVersions(dir, { from: '--help', to: 'working', logger: memoryLogger() }),
    ).rejects.toMatchObject({
      kind: 'invalid-input',
    })
  })

  it('is what `ralph plan diff --from --to --json` prints', async () => {
    const cli = await runCli([
      'plan',
      'diff',
      '--from',
      'task-1-pre',
      '--to',
      'task-1-post',
      '--json',
      '--project',
      dir,
    ])
    expect(cli.code).toBe(0)
    const printed = JSON.parse(cli.stdout) as Record<string, unknown>
    const { ok, ...rest } = printed
    expect(ok).toBe(true)
    expect(rest).toEqual(
      JSON.parse(
        JSON.stringify(
          await comparePlanVersions(dir, { from: 'task-1-pre', to: 'task-1-post', logger: memoryLogger() }),
        ),
      ),
    )
    const text = await runCli(['plan', 'diff', '--from', 'task-1-pre', '--project', dir])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain('Plan task-1-pre → the working copy:')
    expect(text.stdout).toContain('Plan against implementation (task 1):')
    const usage = await runCli(['plan', 'diff', '--to', 'task-1-post', '--project', dir])
    expect(usage.code).toBe(2)
  }, 60_000)
})
