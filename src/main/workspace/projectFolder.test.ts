import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { unprivilegedPrefix } from '../../../tests/helpers/asNobody'
import { makeTempDir } from '../../../tests/helpers/tempDir'
import { checkProjectFolder } from './projectFolder'

describe('checkProjectFolder', () => {
  let dir: ReturnType<typeof makeTempDir>
  beforeEach(() => {
    dir = makeTempDir()
  })
  afterEach(() => dir.cleanup())

  it('accepts a folder and returns its real path, resolving relative paths and symlinks', () => {
    mkdirSync(join(dir.path, 'real'))
    symlinkSync(join(dir.path, 'real'), join(dir.path, 'link'))
    expect(checkProjectFolder('link', { cwd: dir.path })).toBe(join(dir.path, 'real'))
    expect(checkProjectFolder(`  ${join(dir.path, 'real')}  `)).toBe(join(dir.path, 'real'))
  })

  it('refuses a path that does not exist', () => {
    expect(() => checkProjectFolder(join(dir.path, 'nope'))).toThrowError(
      `No folder exists at ${join(dir.path, 'nope')}. Check the path, or create the folder first.`,
    )
  })

  it('refuses a file', () => {
    writeFileSync(join(dir.path, 'a.txt'), 'x')
    expect(() => checkProjectFolder(join(dir.path, 'a.txt'))).toThrowError(/a\.txt is a file, not a folder/)
  })

  it('refuses an empty path', () => {
    expect(() => checkProjectFolder('  ')).toThrowError(/Enter the path of a folder/)
  })

  it('refuses a folder without write permission (checked as an unprivileged user)', () => {
    const locked = join(dir.path, 'locked')
    mkdirSync(locked)
    chmodSync(dir.path, 0o755)
    chmodSync(locked, 0o555)
    const prefix = unprivilegedPrefix()
    const script = `import('${join(process.cwd(), 'src/main/workspace/projectFolder.ts')}').then(m => { try { m.checkProjectFolder(${JSON.stringify(locked)}); console.log('ACCEPTED') } catch (e) { console.log(e.kind + ': ' + e.message) } })`
    const cmd = [...prefix, process.execPath, '--import', 'tsx', '-e', script]
    const out = execFileSync(cmd[0]!, cmd.slice(1), { encoding: 'utf8', cwd: process.cwd() })
    expect(out.trim()).toBe(
      `io: Ralph Studio cannot write to ${locked} (permission denied); it needs to create .ralph/ there. Choose a folder you own, or fix its permissions.`,
    )
  })
})
