import { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useTempDir } from './testkit'
import { initRalphDir } from './initRalphDir'
import { ralphFiles } from './ralphFiles'

describe('initRalphDir', () => {
  const dir = useTempDir()

  it('creates every state file of DESIGN.md §6 with sensible initial content', async () => {
    writeFileSync(join(dir.path, 'README.md'), 'hello')
    const result = await initRalphDir(dir.path, {
      openedFrom: 'a test',
      now: new Date('2026-01-02T03:04:05Z'),
    })
    expect(result.created).toBe(true)
    expect(readdirSync(join(dir.path, '.ralph')).sort()).toEqual(Object.values(ralphFiles).sort())
    const origin = readFileSync(join(dir.path, '.ralph', 'origin.md'), 'utf8')
    expect(origin).toContain('Opened: 2026-01-02T03:04:05.000Z')
    expect(origin).toContain('From: a test')
    expect(origin).toContain('a folder with 1 top-level entries (not a git repository)')
    expect(readFileSync(join(dir.path, '.ralph', 'status.txt'), 'utf8')).toBe('waiting\n')
    expect(JSON.parse(readFileSync(join(dir.path, '.ralph', 'config.json'), 'utf8'))).toMatchObject({
      maxIterations: 50,
      stallThreshold: 3,
    })
    expect(readFileSync(join(dir.path, '.ralph', '.gitignore'), 'utf8')).toContain('snapshots.git/')
    // No temp files left behind.
    expect(readdirSync(join(dir.path, '.ralph')).some((f) => f.endsWith('.tmp'))).toBe(false)
  })

  it('is idempotent on a folder that already has .ralph/: nothing is overwritten', async () => {
    await initRalphDir(dir.path, { openedFrom: 'first' })
    const ralph = join(dir.path, '.ralph')
    writeFileSync(join(ralph, 'task.md'), '# Task 7 in progress')
    writeFileSync(join(ralph, 'status.txt'), 'running\n')
    const origin = readFileSync(join(ralph, 'origin.md'), 'utf8')
    const again = await initRalphDir(dir.path, { openedFrom: 'second' })
    expect(again).toMatchObject({ created: false, createdFiles: [] })
    expect(readFileSync(join(ralph, 'task.md'), 'utf8')).toBe('# Task 7 in progress')
    expect(readFileSync(join(ralph, 'status.txt'), 'utf8')).toBe('running\n')
    expect(readFileSync(join(ralph, 'origin.md'), 'utf8')).toBe(origin)
  })

  it('fills in only the missing files of a partial .ralph/', async () => {
    mkdirSync(join(dir.path, '.ralph'))
    writeFileSync(join(dir.path, '.ralph', 'plan.tsx'), 'export default (<App name="x" />)')
    const result = await initRalphDir(dir.path, { openedFrom: 'test' })
    expect(result.created).toBe(false)
    expect(result.createdFiles).not.toContain('plan.tsx')
    expect(result.createdFiles).toContain('origin.md')
    expect(readFileSync(join(dir.path, '.ralph', 'plan.tsx'), 'utf8')).toBe(
      'export default (<App name="x" />)',
    )
    expect(existsSync(join(dir.path, '.ralph', 'config.json'))).toBe(true)
  })

  it('survives two initialisations racing on the same folder', async () => {
    const results = await Promise.all([
      initRalphDir(dir.path, { openedFrom: 'one' }),
      initRalphDir(dir.path, { openedFrom: 'two' }),
    ])
    const created = results.flatMap((r) => r.createdFiles)
    expect(created.sort()).toEqual(Object.values(ralphFiles).sort())
  })
})
