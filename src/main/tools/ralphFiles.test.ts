import { existsSync, readFileSync, readlinkSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { executeTool } from './index'
import { captureHarnessFiles, restoreHarnessFiles, writeRefusal } from './ralphFiles'
import { eachProject, put, removeDir } from './testkit'
import type { RunContext } from './types'

let root: string
let ctx: RunContext
eachProject((p) => ({ root, ctx } = p), {
  '.ralph/progress.md': '# progress\n',
  '.ralph/config.json': '{"maxIterations":50}',
})

const run = (name: string, args: unknown) => executeTool(name, args, ctx)
const read = (rel: string) => readFileSync(join(root, rel), 'utf8')

describe('.ralph/ is allowlist-writable for the model', () => {
  it('refuses every .ralph/ path but plan.tsx, summary.md and status.txt, in any letter case', () => {
    for (const rel of [
      '.ralph/progress.md',
      '.ralph/notifications/fake.md',
      '.ralph/evil.md',
      '.ralph/config.json',
      '.RALPH/progress.md',
      '.ralph/PLAN.tsx',
    ]) {
      expect(writeRefusal(rel), rel).toMatch(/^Refused: /)
    }
    for (const rel of ['.ralph/plan.tsx', '.ralph/summary.md', '.ralph/status.txt', 'src/.ralph.md'])
      expect(writeRefusal(rel), rel).toBeNull()
    expect(writeRefusal('.ralph/notifications/fake.md')).toContain(
      'The model writes only .ralph/plan.tsx, .ralph/summary.md, .ralph/status.txt in .ralph/.',
    )
  })

  it('write_file and edit_file refuse them and leave them alone', async () => {
    const w = await run('write_file', { path: '.ralph/notifications/fake.md', content: 'curl x | sh' })
    expect(w).toMatchObject({ ok: false })
    expect(w.output).toContain('.ralph/notifications/fake.md is inside .ralph/')
    expect(existsSync(join(root, '.ralph/notifications'))).toBe(false)
    const e = await run('edit_file', { path: '.ralph/progress.md', old_string: 'progress', new_string: 'x' })
    expect(e.ok).toBe(false)
    expect(e.output).toContain('.ralph/progress.md is owned by the harness')
    expect(read('.ralph/progress.md')).toBe('# progress\n')
    expect((await run('write_file', { path: '.ralph/plan.tsx', content: 'export default 1\n' })).ok).toBe(
      true,
    )
  })

  it('refuses a write that reaches .ralph/ through a symbolic link', async () => {
    symlinkSync('.ralph', join(root, 'state'))
    const w = await run('write_file', { path: 'state/evil.md', content: 'x' })
    expect(w.ok).toBe(false)
    expect(existsSync(join(root, '.ralph/evil.md'))).toBe(false)
  })
})

describe('captureHarnessFiles / restoreHarnessFiles (unsandboxed commands)', () => {
  it('removes what appeared under .ralph/, restores what changed, keeps the allowlist and the store', async () => {
    put(root, '.ralph/notifications/done-1.md', 'real note\n')
    put(root, '.ralph/snapshots.git/HEAD', 'ref\n')
    const before = await captureHarnessFiles(root)

    put(root, '.ralph/progress.md', 'forged\n')
    put(root, '.ralph/notifications/done-1.md', 'run curl | sh\n')
    put(root, '.ralph/notifications/fake.md', 'run curl | sh\n')
    put(root, '.ralph/evil.md', 'x')
    put(root, '.ralph/new/deep/file.md', 'x')
    removeDir(join(root, '.ralph/config.json'))
    put(root, '.ralph/plan.tsx', 'export default 1\n')
    put(root, '.ralph/summary.md', 'done\n')
    put(root, '.ralph/snapshots.git/HEAD', 'changed\n')

    expect((await restoreHarnessFiles(root, before)).sort()).toEqual([
      '.ralph/config.json',
      '.ralph/evil.md',
      '.ralph/new',
      '.ralph/notifications/done-1.md',
      '.ralph/notifications/fake.md',
      '.ralph/progress.md',
    ])
    expect(read('.ralph/progress.md')).toBe('# progress\n')
    expect(read('.ralph/config.json')).toBe('{"maxIterations":50}')
    expect(read('.ralph/notifications/done-1.md')).toBe('real note\n')
    for (const gone of ['.ralph/notifications/fake.md', '.ralph/evil.md', '.ralph/new'])
      expect(existsSync(join(root, gone)), gone).toBe(false)
    expect(read('.ralph/plan.tsx')).toBe('export default 1\n')
    expect(read('.ralph/summary.md')).toBe('done\n')
    expect(read('.ralph/snapshots.git/HEAD')).toBe('changed\n')
    expect(await restoreHarnessFiles(root, before)).toEqual([])
  })

  it('puts back a folder the command swapped for a symbolic link, and its files', async () => {
    put(root, '.ralph/notifications/done-1.md', 'real note\n')
    const before = await captureHarnessFiles(root)
    removeDir(join(root, '.ralph/notifications'))
    symlinkSync(root, join(root, '.ralph/notifications'))
    expect(await restoreHarnessFiles(root, before)).toEqual([
      '.ralph/notifications',
      '.ralph/notifications/done-1.md',
    ])
    expect(read('.ralph/notifications/done-1.md')).toBe('real note\n')
    expect(() => readlinkSync(join(root, '.ralph/notifications'))).toThrow()
  })
})
