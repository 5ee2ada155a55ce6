import { chmodSync, existsSync, linkSync, readFileSync, statSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { executeTool } from './index'
import { READ_MAX_LINES } from './readFile'
import { makeContext, put, removeDir, tempDir } from './testkit'
import type { ToolContext } from './types'

let root: string
let outside: string
let ctx: ToolContext

beforeEach(() => {
  root = tempDir()
  outside = tempDir('ralph-outside-')
  ctx = makeContext(root)
})
afterEach(() => {
  removeDir(root)
  removeDir(outside)
})

const run = (name: string, args: unknown) => executeTool(name, args, ctx)
const read = (rel: string) => readFileSync(join(root, rel), 'utf8')

describe('read_file', () => {
  it('numbers lines', async () => {
    put(root, 'a.txt', 'one\ntwo\r\nthree\n')
    const r = await run('read_file', { path: 'a.txt' })
    expect(r).toMatchObject({ ok: true, changedFiles: [], completed: false })
    expect(r.output).toBe('     1\tone\n     2\ttwo\n     3\tthree')
  })

  it('reads a slice with offset and limit, and says how to continue', async () => {
    put(root, 'a.txt', Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n'))
    const r = await run('read_file', { path: 'a.txt', offset: 3, limit: 2 })
    expect(r.output).toContain('     3\tline 3\n     4\tline 4')
    expect(r.output).not.toContain('line 5')
    expect(r.output).toContain(
      '[Showing lines 3-4 of 10 in a.txt. To read further, call read_file with offset=5.]',
    )
  })

  it('truncates long files with a note', async () => {
    put(root, 'big.txt', Array.from({ length: 3000 }, (_, i) => `l${i + 1}`).join('\n'))
    const r = await run('read_file', { path: 'big.txt' })
    expect(r.output.split('\n')).toHaveLength(READ_MAX_LINES + 1)
    expect(r.output).toContain(`offset=${READ_MAX_LINES + 1}`)
  })

  it('truncates by size and clips very long lines', async () => {
    put(root, 'wide.txt', Array.from({ length: 100 }, () => 'x'.repeat(5000)).join('\n'))
    const r = await run('read_file', { path: 'wide.txt' })
    expect(r.output.length).toBeLessThan(110_000)
    expect(r.output).toContain('line truncated, 5000 characters')
    expect(r.output).toMatch(/To read further, call read_file with offset=\d+/)
  })

  it('describes binary and empty files instead of dumping them', async () => {
    put(root, 'img.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]))
    put(root, 'empty.txt', '')
    expect((await run('read_file', { path: 'img.png' })).output).toMatch(/binary file \(8 B\)/)
    expect((await run('read_file', { path: 'empty.txt' })).output).toMatch(/empty/)
  })

  it('errors for missing files, folders and offsets past the end', async () => {
    put(root, 'dir/a.txt', 'a\n')
    expect(await run('read_file', { path: 'nope.txt' })).toMatchObject({ ok: false })
    expect((await run('read_file', { path: 'dir' })).output).toMatch(/folder/)
    expect((await run('read_file', { path: 'dir/a.txt', offset: 5 })).output).toMatch(/has 1 lines/)
  })

  it('refuses paths outside the project', async () => {
    put(outside, 'secret.txt', 'top secret')
    symlinkSync(outside, join(root, 'link'))
    for (const path of [join(outside, 'secret.txt'), '../secret.txt', 'link/secret.txt', '.git/config']) {
      const r = await run('read_file', { path })
      expect(r.ok, path).toBe(false)
      expect(r.output).not.toContain('top secret')
    }
  })

  it('refuses a hard link, whose other name may be outside the project', async () => {
    put(outside, 'shadow', 'root:$6$planted-hash')
    linkSync(join(outside, 'shadow'), join(root, 'inside'))
    const r = await run('read_file', { path: 'inside' })
    expect(r.ok).toBe(false)
    expect(r.output).toMatch(/hard link .* may be outside the project/)
    expect(r.output).not.toContain('planted')
  })
})

describe('write_file', () => {
  it('creates folders and reports bytes', async () => {
    const r = await run('write_file', { path: 'src/deep/x.ts', content: 'const é = 1\n' })
    expect(r).toMatchObject({ ok: true, changedFiles: ['src/deep/x.ts'], completed: false })
    expect(r.output).toContain('Created src/deep/x.ts: wrote 13 bytes (1 line)')
    expect(read('src/deep/x.ts')).toBe('const é = 1\n')
  })

  it('overwrites atomically, keeping the file mode, and notices unchanged content', async () => {
    put(root, 'run.sh', 'echo 1\n')
    chmodSync(join(root, 'run.sh'), 0o755)
    expect((await run('write_file', { path: 'run.sh', content: 'echo 2\n' })).output).toMatch(/^Overwrote/)
    expect(statSync(join(root, 'run.sh')).mode & 0o777).toBe(0o755)
    const same = await run('write_file', { path: 'run.sh', content: 'echo 2\n' })
    expect(same).toMatchObject({ ok: true, changedFiles: [] })
    expect(same.output).toMatch(/nothing changed/)
  })

  it('writing complete to .ralph/status.txt completes the task', async () => {
    const r = await run('write_file', { path: '.ralph/status.txt', content: 'complete\n' })
    expect(r).toMatchObject({ ok: true, completed: true, changedFiles: ['.ralph/status.txt'] })
    expect((await run('write_file', { path: '.ralph/status.txt', content: 'running' })).completed).toBe(false)
    expect((await run('write_file', { path: 'status.txt', content: 'complete' })).completed).toBe(false)
  })

  it('refuses harness-owned files', async () => {
    for (const path of ['.ralph/config.json', '.ralph/task.md', '.ralph/phase.txt', './.ralph/feedback.md']) {
      const r = await run('write_file', { path, content: '{}' })
      expect(r.ok, path).toBe(false)
      expect(r.output).toMatch(/owned by the harness/)
      expect(existsSync(join(root, path))).toBe(false)
    }
    expect((await run('write_file', { path: '.ralph/plan.tsx', content: 'x' })).ok).toBe(true)
  })

  it('never writes outside the project', async () => {
    symlinkSync(outside, join(root, 'link'))
    symlinkSync(join(outside, 'dangling.txt'), join(root, 'dangling'))
    const attempts = [
      join(outside, 'abs.txt'),
      '../escape.txt',
      'foo/../../escape2.txt',
      'link/via-link.txt',
      'link/new/dir/deep.txt',
      'dangling',
      '.git/config',
      'sub/.git/HEAD',
      '.ralph/snapshots.git/HEAD',
    ]
    for (const path of attempts) {
      const r = await run('write_file', { path, content: 'pwned' })
      expect(r.ok, path).toBe(false)
      expect(r.changedFiles).toEqual([])
    }
    for (const f of ['abs.txt', 'escape.txt', 'escape2.txt', 'via-link.txt', 'new', 'dangling.txt']) {
      expect(existsSync(join(outside, f)), f).toBe(false)
    }
    expect(existsSync(join(root, '..', 'escape.txt'))).toBe(false)
    expect(existsSync(join(root, '.git'))).toBe(false)
    expect(existsSync(join(root, 'sub'))).toBe(false)
  })

  it('handles unicode names, spaces and leading dashes', async () => {
    for (const path of ['with space/ünï cødé.md', '-rf', '--help.txt']) {
      expect((await run('write_file', { path, content: 'ok' })).ok, path).toBe(true)
      expect(read(path)).toBe('ok')
    }
  })
})

describe('edit_file', () => {
  beforeEach(() => put(root, 'a.ts', 'const a = 1\nconst b = 2\nconst a2 = 1\n'))

  it('replaces one unique occurrence', async () => {
    const r = await run('edit_file', {
      path: 'a.ts',
      old_string: 'const b = 2',
      new_string: 'const b = 3\nconst c = 4',
    })
    expect(r).toMatchObject({ ok: true, changedFiles: ['a.ts'], completed: false })
    expect(r.output).toContain('at line 2')
    expect(read('a.ts')).toBe('const a = 1\nconst b = 3\nconst c = 4\nconst a2 = 1\n')
  })

  it('errors when old_string is missing, changing nothing', async () => {
    const r = await run('edit_file', { path: 'a.ts', old_string: 'const z = 9', new_string: 'x' })
    expect(r).toMatchObject({ ok: false, changedFiles: [] })
    expect(r.output).toMatch(/not found/)
    expect(read('a.ts')).toBe('const a = 1\nconst b = 2\nconst a2 = 1\n')
  })

  it('errors when old_string is not unique, saying how many and where', async () => {
    const r = await run('edit_file', { path: 'a.ts', old_string: '= 1', new_string: '= 5' })
    expect(r.ok).toBe(false)
    expect(r.output).toMatch(/matches 2 places in a\.ts \(lines 1, 3\)/)
    expect(r.output).toMatch(/add surrounding lines/)
  })

  it('matches CRLF files with \\n in old_string', async () => {
    put(root, 'w.txt', 'one\r\ntwo\r\nthree\r\n')
    const r = await run('edit_file', { path: 'w.txt', old_string: 'one\ntwo', new_string: 'uno\ndos' })
    expect(r.ok).toBe(true)
    expect(read('w.txt')).toBe('uno\r\ndos\r\nthree\r\n')
  })

  it('rejects empty or identical strings and missing files', async () => {
    expect((await run('edit_file', { path: 'a.ts', old_string: '', new_string: 'x' })).ok).toBe(false)
    expect((await run('edit_file', { path: 'a.ts', old_string: 'a', new_string: 'a' })).ok).toBe(false)
    expect((await run('edit_file', { path: 'b.ts', old_string: 'a', new_string: 'b' })).output).toMatch(
      /write_file/,
    )
  })

  it('completes when status.txt becomes complete', async () => {
    put(root, '.ralph/status.txt', 'running')
    const r = await run('edit_file', {
      path: '.ralph/status.txt',
      old_string: 'running',
      new_string: 'complete',
    })
    expect(r).toMatchObject({ ok: true, completed: true })
  })

  it('refuses harness files', async () => {
    put(root, '.ralph/config.json', '{"maxIterations": 50}')
    const r = await run('edit_file', { path: '.ralph/config.json', old_string: '50', new_string: '5000' })
    expect(r.ok).toBe(false)
    expect(read('.ralph/config.json')).toBe('{"maxIterations": 50}')
  })
})

describe('mark_complete', () => {
  it('writes summary.md with evidence and status.txt', async () => {
    const r = await run('mark_complete', { summary: 'Added the page.', evidence: 'npm test: 12 passed' })
    expect(r).toMatchObject({
      ok: true,
      completed: true,
      changedFiles: ['.ralph/summary.md', '.ralph/status.txt'],
    })
    expect(read('.ralph/status.txt')).toBe('complete')
    expect(read('.ralph/summary.md')).toBe(
      '# Summary\n\nAdded the page.\n\n## Evidence\n\nnpm test: 12 passed\n',
    )
  })

  it('refuses an empty summary', async () => {
    const r = await run('mark_complete', { summary: '  ' })
    expect(r).toMatchObject({ ok: false, completed: false })
    expect(existsSync(join(root, '.ralph/status.txt'))).toBe(false)
  })
})
