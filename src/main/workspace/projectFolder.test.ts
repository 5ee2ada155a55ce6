import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { unprivilegedPrefix } from '../../../tests/helpers/asNobody'
import { AppError } from '../../shared/errors'
import { checkProjectFolder, homeLikeSigns, systemFolderReason } from './projectFolder'
import { useTempDir } from './testkit'

describe('checkProjectFolder', () => {
  const dir = useTempDir()

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

describe('systemFolderReason: a folder that holds the home folder, by real path (issue 34)', () => {
  it('refuses /var/home, /data/home and any folder that contains the real home, a HOME through a symlink too', () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-home-')))
    try {
      const realHome = join(root, 'var', 'home', 'me')
      mkdirSync(join(realHome, 'dev', 'app'), { recursive: true })
      mkdirSync(join(realHome, '.ssh', 'keys'), { recursive: true })
      // HOME=/home/me where /home → /var/home: the given path is a symlink.
      symlinkSync(join(root, 'var', 'home'), join(root, 'home'))
      const os = { platform: 'linux' as const, home: join(root, 'home', 'me') }
      expect(systemFolderReason(realHome, os)).toMatch(/your home folder itself/)
      expect(systemFolderReason(join(root, 'var', 'home'), os)).toMatch(/contains your home folder/)
      expect(systemFolderReason(join(root, 'var'), os)).toMatch(/contains your home folder/)
      expect(systemFolderReason(root, os)).toMatch(/contains your home folder/)
      expect(systemFolderReason(join(realHome, '.ssh', 'keys'), os)).toMatch(/credential store.*~\/\.ssh/)
      expect(systemFolderReason(join(realHome, 'dev', 'app'), os)).toBeNull()
      expect(systemFolderReason(join(root, 'elsewhere'), os)).toBeNull()
      // A lane's working copy in the default app data folder is a project (issue #38); the rest of it is not.
      const appData = join(realHome, '.config', 'ralph-studio')
      expect(systemFolderReason(join(appData, 'lanes', 'p1', 'lane-3', 'work'), os)).toBeNull()
      expect(systemFolderReason(join(appData, 'lanes', 'p1', 'lane-3'), os)).toMatch(/credential store/)
      expect(systemFolderReason(join(realHome, '.ssh', 'lanes', 'p1', 'lane-3', 'work'), os)).toMatch(/\.ssh/)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})

describe('systemFolderReason', () => {
  type Os = Parameters<typeof systemFolderReason>[1]
  const expectRefused = (os: Os, paths: string[]) => {
    for (const p of paths) expect(systemFolderReason(p, os), p).not.toBeNull()
  }
  const expectAllowed = (os: Os, paths: string[]) => {
    for (const p of paths) expect(systemFolderReason(p, os), p).toBeNull()
  }
  it('refuses the root, system folders and the home folder itself, on each platform', () => {
    const linux = { platform: 'linux' as const, home: '/home/me' }
    expectRefused(linux, [
      '/',
      '/etc',
      '/usr/local/lib',
      '/bin',
      '/proc/1',
      '/sys',
      '/boot',
      '/lib64',
      '/var',
      '/var/lib/x',
      '/opt',
      '/home',
      '/home/me',
      '/tmp',
    ])
    expect(systemFolderReason('/', linux)).toMatch(/root of the file system/)
    expect(systemFolderReason('/home/me', linux)).toMatch(/your home folder itself/)
    expectAllowed(linux, ['/home/me/app', '/var/www/site', '/opt/app', '/srv/app', '/tmp/x', '/work/app'])
    const mac = { platform: 'darwin' as const, home: '/Users/me' }
    expectRefused(mac, [
      '/',
      '/System/Library',
      '/Library',
      '/Applications/X.app',
      '/Users',
      '/Users/me',
      '/private/etc',
    ])
    expect(systemFolderReason('/Users/me/dev/app', mac)).toBeNull()
    const win = { platform: 'win32' as const, home: 'C:\\Users\\me' }
    expectRefused(win, [
      'C:\\',
      'D:\\',
      'C:\\Windows',
      'c:\\windows\\system32',
      'C:\\Program Files\\x',
      'C:\\Users',
      'C:\\Users\\me',
    ])
    expect(systemFolderReason('C:\\Users\\me\\dev\\app', win)).toBeNull()
  })

  it('checkProjectFolder refuses them with the reason', () => {
    expect(() => checkProjectFolder('/')).toThrowError(
      /will not open \/ as a project: it is the root of the file system/,
    )
    expect(() => checkProjectFolder('/etc', { write: false })).toThrowError(/it is a system folder/)
  })
})

describe('home-like folders', () => {
  const dir = useTempDir()

  it('asks first (an error with needsConfirmation) until confirmed, and never again once it is a project', () => {
    mkdirSync(join(dir.path, '.ssh'))
    writeFileSync(join(dir.path, '.bashrc'), '')
    mkdirSync(join(dir.path, 'Documents'))
    expect(homeLikeSigns(dir.path)).toEqual(['.ssh', '.bashrc', 'Documents'])
    let caught: unknown
    try {
      checkProjectFolder(dir.path)
    } catch (err) {
      caught = err
    }
    expect(caught).toBeInstanceOf(AppError)
    expect((caught as AppError).kind).toBe('invalid-input')
    expect((caught as AppError).message).toMatch(
      /looks like a home folder \(it has \.ssh, \.bashrc, Documents\)/,
    )
    expect((caught as AppError).details).toEqual({
      needsConfirmation: 'home-like',
      path: dir.path,
      signs: ['.ssh', '.bashrc', 'Documents'],
    })
    // Read-only commands and a confirmed open go through; an existing .ralph/ means it was confirmed before.
    expect(checkProjectFolder(dir.path, { write: false })).toBe(dir.path)
    expect(checkProjectFolder(dir.path, { confirmHomeLike: true })).toBe(dir.path)
    mkdirSync(join(dir.path, '.ralph'))
    expect(checkProjectFolder(dir.path)).toBe(dir.path)
  })

  it('one sign alone is not a home', () => {
    mkdirSync(join(dir.path, '.config'))
    expect(homeLikeSigns(dir.path)).toEqual([])
    expect(checkProjectFolder(dir.path)).toBe(dir.path)
  })
})
