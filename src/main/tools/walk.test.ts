import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { forbiddenReason } from '../workspace/offLimits'
import { useTempDir } from '../workspace/testkit'
import { makeContext, put } from './testkit'
import { executeTool } from './index'
import { isHidden, rulesFor } from './walk'

const dir = useTempDir('ralph-tools-')

describe('the walker', () => {
  it('hides whatever the path rules refuse, not only its own list', async () => {
    // Upper case: the walker's own check is for `.lock`; paths.ts refuses lock files in any case.
    expect(forbiddenReason('.ralph/STATE.LOCK')).not.toBeNull()
    expect(isHidden('.ralph/STATE.LOCK', 'STATE.LOCK')).toBe(true)
    expect(isHidden('src/app.ts', 'app.ts')).toBe(false)
    put(dir.path, '.ralph/STATE.LOCK', 'x')
    put(dir.path, '.ralph/status.txt', 'running')
    const listed = await executeTool('list_files', { path: '.ralph' }, makeContext(dir.path))
    expect(listed.output).toContain('status.txt')
    expect(listed.output).not.toContain('STATE.LOCK')
  })

  it.skipIf(process.platform === 'win32')(
    'skips a .gitignore that is a named pipe, with a note',
    async () => {
      put(dir.path, 'src/app.ts', 'x')
      put(dir.path, '.gitignore', 'dist/\n')
      execFileSync('mkfifo', [join(dir.path, 'src/.gitignore')])
      const notes = new Set<string>()
      const rules = await rulesFor(dir.path, 'src', notes)
      expect(rules).toHaveLength(1) // the root's rule only
      expect([...notes]).toEqual([
        '[src/.gitignore is a named pipe (FIFO), not a regular file: it was not read (reading it could wait ' +
          'forever). Its ignore rules were not applied.]',
      ])
    },
  )
})
