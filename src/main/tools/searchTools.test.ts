import { linkSync, mkdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { GREP_MAX_MATCHES, grepTool } from './grep'
import { executeTool } from './index'
import { LIST_MAX_ENTRIES } from './listFiles'
import { eachProject, put, removeDir, tempDir } from './testkit'
import type { RunContext } from './types'

let root: string
let ctx: RunContext
eachProject((p) => ({ root, ctx } = p), {
  'README.md': '# Hello\nTODO: write docs\n',
  'src/app.ts': 'export function main() {\n  // TODO: implement\n  return 1\n}\n',
  'src/lib/util.ts': 'export const todo = 2\n',
  'src/lib/deep/deeper/x.ts': 'TODO deep\n',
  'node_modules/pkg/index.js': 'TODO in deps\n',
  'dist/out.js': 'TODO in build\n',
  '.git/config': 'TODO in git\n',
  'sub/.git': 'gitdir: x\n',
  'logs/a.log': 'TODO in log\n',
  'notes.log': 'TODO ignored file\n',
  '.gitignore': 'logs/\n*.log\n',
  '.ralph/plan.tsx': '// TODO plan\n',
  '.ralph/snapshots.git/HEAD': 'TODO store\n',
  '.ralph/snapshots.lock': 'TODO lock\n',
  'bin.dat': Buffer.from([1, 2, 0, 84, 79, 68, 79]),
})

const run = (name: string, args: unknown) => executeTool(name, args, ctx)

describe('list_files', () => {
  it('shows a tree without .git, the store, locks, dependencies or ignored files', async () => {
    const r = await run('list_files', {})
    expect(r.ok).toBe(true)
    const out = r.output
    expect(out).toContain('Project root (depth 3):')
    expect(out).toContain('src/\n  lib/\n    deep/ (1 entry, not expanded)\n    util.ts\n  app.ts')
    expect(out).toContain('node_modules/ (ignored: dependencies or build output)')
    expect(out).toContain('dist/ (ignored: dependencies or build output)')
    expect(out).toContain('logs/ (ignored: .gitignore)')
    expect(out).toContain('.ralph/\n  plan.tsx')
    expect(out).not.toMatch(/\.git\/|snapshots|\.lock|notes\.log|pkg/)
    expect(out).toContain('.gitignore')
  })

  it('lists a subfolder with a depth', async () => {
    const r = await run('list_files', { path: 'src/lib', depth: 5 })
    expect(r.output).toBe('src/lib/ (depth 5):\ndeep/\n  deeper/\n    x.ts\nutil.ts')
  })

  it('shows symlinks without following them', async () => {
    symlinkSync('/tmp', join(root, 'tmplink'))
    expect((await run('list_files', {})).output).toContain('tmplink -> /tmp')
  })

  it('truncates big trees with a note', async () => {
    for (let i = 0; i < LIST_MAX_ENTRIES + 20; i++) put(root, `many/f${String(i).padStart(4, '0')}.txt`, '')
    const r = await run('list_files', { path: 'many' })
    expect(r.output.split('\n').filter((l) => l.startsWith('f'))).toHaveLength(LIST_MAX_ENTRIES)
    expect(r.output).toContain(`[Listing truncated at ${LIST_MAX_ENTRIES} entries`)
  })

  it('errors for files, missing folders and refused paths', async () => {
    expect((await run('list_files', { path: 'README.md' })).ok).toBe(false)
    expect((await run('list_files', { path: 'nope' })).ok).toBe(false)
    expect((await run('list_files', { path: '..' })).ok).toBe(false)
    expect((await run('list_files', { path: '.git' })).ok).toBe(false)
    mkdirSync(join(root, 'empty'))
    expect((await run('list_files', { path: 'empty' })).output).toBe('empty/ is empty.')
  })
})

describe('grep', () => {
  it('skips a hard link, whose other name may be outside the project', async () => {
    const outside = tempDir()
    try {
      put(outside, 'shadow', 'root:$6$planted-hash TODO')
      linkSync(join(outside, 'shadow'), join(root, 'inside'))
      const r = await run('grep', { pattern: 'planted' })
      expect(r.output).not.toContain('planted-hash')
      expect(r.output).toContain(
        '[Skipped 1 hard-linked file: their other names may be outside the project.]',
      )
    } finally {
      removeDir(outside)
    }
  })

  it('finds matches as file:line: text, skipping excluded, ignored and binary files', async () => {
    const r = await run('grep', { pattern: 'TODO' })
    expect(r.ok).toBe(true)
    const lines = r.output.split('\n').sort()
    expect(lines).toEqual([
      '.ralph/plan.tsx:1: // TODO plan',
      'README.md:2: TODO: write docs',
      'src/app.ts:2:   // TODO: implement',
      'src/lib/deep/deeper/x.ts:1: TODO deep',
    ])
  })

  it('supports regexes, (?i) and a path', async () => {
    expect(
      (await run('grep', { pattern: '^export (function|const) \\w+', path: 'src' })).output.split('\n'),
    ).toHaveLength(2)
    expect((await run('grep', { pattern: '(?i)todo', path: 'src/lib/util.ts' })).output).toBe(
      'src/lib/util.ts:1: export const todo = 2',
    )
  })

  it('reports no matches and invalid regexes clearly', async () => {
    expect((await run('grep', { pattern: 'nothing-here' })).output).toMatch(/^No matches .* files searched/)
    const bad = await run('grep', { pattern: 'foo(' })
    expect(bad.ok).toBe(false)
    expect(bad.output).toMatch(/Invalid regular expression "foo\(".*escape/s)
  })

  it('caps the number of matches with a note', async () => {
    put(root, 'many.txt', Array.from({ length: 500 }, (_, i) => `hit ${i}`).join('\n'))
    const r = await run('grep', { pattern: 'hit', path: 'many.txt' })
    expect(r.output.split('\n').filter((l) => l.startsWith('many.txt:'))).toHaveLength(GREP_MAX_MATCHES)
    expect(r.output).toContain(`[Stopped at ${GREP_MAX_MATCHES} matches`)
  })

  it('refuses paths outside the project', async () => {
    expect((await run('grep', { pattern: 'root', path: '/etc' })).ok).toBe(false)
    expect((await run('grep', { pattern: 'x', path: '../' })).ok).toBe(false)
  })
})

describe('grep with a catastrophic pattern', () => {
  it('gives up at its time budget instead of freezing the process', async () => {
    put(root, 'evil.txt', `${'a'.repeat(40)}b\n`)
    const r = await grepTool({ pattern: '(a+)+$', path: 'evil.txt' }, ctx, 200)
    expect(r.ok).toBe(false)
    expect(r.output).toMatch(/too slow/)
  })
})

describe('the one blocked-paths list (issue 34): keys and *.env files, whatever their case', () => {
  const blocked = ['prod.env', 'deploy/PROD.ENV', 'certs/server.pem', 'certs/Server.PEM', 'tls.KEY', 'id_rsa']
  const blockedNames = /prod\.env|PROD\.ENV|server\.pem|Server\.PEM|tls\.KEY|id_rsa(?!\.pub)/

  it('read_file and write_file refuse them; list_files and grep never name them', async () => {
    for (const p of [...blocked, 'keys/id_ed25519', 'a.p12', 'b.PFX']) put(root, p, 'SECRET=hunter2\n')
    put(root, 'keys/id_rsa.pub', 'ssh-rsa public SECRET\n')
    for (const p of [...blocked, 'keys/id_ed25519', 'a.p12', 'b.PFX']) {
      const r = await run('read_file', { path: p })
      expect(r.ok, p).toBe(false)
      expect(r.output).toMatch(/blocked path that holds keys or secrets/)
      expect((await run('write_file', { path: p, content: 'x' })).ok, p).toBe(false)
    }
    expect((await run('read_file', { path: 'keys/id_rsa.pub' })).ok).toBe(true)
    const listed = (await run('list_files', { depth: 5 })).output
    expect(listed).not.toMatch(blockedNames)
    expect(listed).toContain('id_rsa.pub')
    const grep = (await run('grep', { pattern: 'SECRET' })).output
    expect(grep).toBe('keys/id_rsa.pub:1: ssh-rsa public SECRET')
  })
})
