import { describe, expect, it } from 'vitest'
import { bwrapArgs, bwrapArgs as args_, limitsPrologue } from './bwrap'
import { defaultSandboxLimits } from './config'
import type { SandboxPolicy } from './policy'
import { seatbeltProfile } from './seatbelt'

const policy = (over: Partial<SandboxPolicy> = {}): SandboxPolicy => ({
  projectDir: '/work/app',
  readOnly: [
    { path: '/work/app/.ralph', kind: 'dir' },
    { path: '/work/app/.git', kind: 'dir' },
  ],
  writable: ['/work/app/.ralph/status.txt'],
  hidden: [
    { path: '/home/me/.config/ralph-studio', kind: 'dir' },
    { path: '/home/me/.netrc', kind: 'file' },
    { path: '/work/app/.data', kind: 'dir' },
  ],
  home: '/tmp/ralph-sandbox-1000/abc',
  network: true,
  hiddenRoots: [],
  homeAllowed: [],
  appInstall: [],
  limits: defaultSandboxLimits,
  ...over,
})

const indexOfPair = (args: string[], flag: string, path: string) =>
  args.findIndex((a, i) => a === flag && args[i + 1] === path)

describe('bwrapArgs', () => {
  it('layers the mounts: root read-only, secrets hidden, project writable, .ralph read-only on top', () => {
    const args = bwrapArgs(policy())
    const at = (flag: string, path: string) => {
      const i = indexOfPair(args, flag, path)
      expect(i, `${flag} ${path}`).toBeGreaterThanOrEqual(0)
      return i
    }
    const root = at('--ro-bind', '/')
    const tmp = at('--tmpfs', '/tmp')
    const appData = at('--tmpfs', '/home/me/.config/ralph-studio')
    const netrc = args.findIndex((a, i) => a === '/dev/null' && args[i + 1] === '/home/me/.netrc')
    const project = at('--bind', '/work/app')
    const insideHidden = at('--tmpfs', '/work/app/.data')
    const ralph = at('--ro-bind', '/work/app/.ralph')
    const status = at('--bind', '/work/app/.ralph/status.txt')
    expect(root).toBeLessThan(tmp)
    expect(tmp).toBeLessThan(appData)
    expect(netrc).toBeGreaterThan(tmp)
    expect(appData).toBeLessThan(project)
    expect(project).toBeLessThan(insideHidden)
    expect(project).toBeLessThan(ralph)
    expect(ralph).toBeLessThan(status)
    expect(args).toEqual(expect.arrayContaining(['--unshare-pid', '--die-with-parent', '--new-session']))
    expect(args.slice(args.indexOf('--cap-drop'), args.indexOf('--cap-drop') + 2)).toEqual([
      '--cap-drop',
      'ALL',
    ])
    expect(args.slice(-2)).toEqual(['--chdir', '/work/app'])
  })

  it('cuts the network only when the project says so', () => {
    expect(bwrapArgs(policy())).not.toContain('--unshare-net')
    expect(bwrapArgs(policy({ network: false }))).toContain('--unshare-net')
  })

  it("keeps the user's .git read-only too", () => {
    const args = bwrapArgs(policy())
    expect(indexOfPair(args, '--ro-bind', '/work/app/.git')).toBeGreaterThan(
      indexOfPair(args, '--bind', '/work/app'),
    )
  })
})

describe('bwrapArgs: homes, the snapshot store, secrets inside the project, limits', () => {
  const p = policy({
    projectDir: '/home/me/app',
    readOnly: [{ path: '/home/me/app/.ralph', kind: 'dir' }],
    writable: ['/home/me/app/.ralph/status.txt'],
    hidden: [
      { path: '/home/me/.config/ralph-studio', kind: 'dir' },
      { path: '/etc/shadow', kind: 'file' },
      { path: '/home/me/app/.ralph/snapshots.git', kind: 'dir' },
      { path: '/home/me/app/.env', kind: 'file' },
      { path: '/home/me/app/backup/.ssh', kind: 'dir' },
    ],
    hiddenRoots: ['/home', '/root'],
    homeAllowed: ['/home/me/.nvm'],
    limits: { ...defaultSandboxLimits, tmpMb: 64 },
  })
  const args = args_(p)
  const at = (flag: string, path: string) => indexOfPair(args, flag, path)

  it('empties every home, binds the toolchains back read-only, then the project, and makes the homes read-only last', () => {
    expect(at('--tmpfs', '/home')).toBeGreaterThan(at('--ro-bind', '/'))
    expect(args[at('--tmpfs', '/home') - 2]).toBe('--size')
    expect(at('--tmpfs', '/root')).toBeGreaterThan(0)
    expect(at('--ro-bind', '/home/me/.nvm')).toBeGreaterThan(at('--tmpfs', '/home'))
    expect(at('--bind', '/home/me/app')).toBeGreaterThan(at('--ro-bind', '/home/me/.nvm'))
    expect(at('--remount-ro', '/home')).toBeGreaterThan(at('--bind', '/home/me/app/.ralph/status.txt'))
    // Already gone with /home: not mounted over again.
    expect(at('--tmpfs', '/home/me/.config/ralph-studio')).toBe(-1)
    expect(args.findIndex((a, i) => a === '/dev/null' && args[i + 1] === '/etc/shadow')).toBeGreaterThan(0)
  })

  it('covers the snapshot store after .ralph is bound read-only, and secrets inside the project after the project', () => {
    expect(at('--tmpfs', '/home/me/app/.ralph/snapshots.git')).toBeGreaterThan(
      at('--ro-bind', '/home/me/app/.ralph'),
    )
    expect(at('--tmpfs', '/home/me/app/backup/.ssh')).toBeGreaterThan(at('--bind', '/home/me/app'))
    expect(
      args.findIndex((a, i) => a === '/dev/null' && args[i + 1] === '/home/me/app/.env'),
    ).toBeGreaterThan(at('--bind', '/home/me/app'))
  })

  it('empties an app data folder that holds the project (a lane) before the bind, and makes it read-only after', () => {
    const lane = '/data/ralph-studio/lanes/1/lane-2/work'
    const a = args_(
      policy({
        projectDir: lane,
        readOnly: [],
        writable: [],
        hidden: [{ path: '/data/ralph-studio', kind: 'dir' }],
      }),
    )
    const pos = (flag: string, path: string) => indexOfPair(a, flag, path)
    expect(pos('--tmpfs', '/data/ralph-studio')).toBeGreaterThan(0)
    expect(pos('--bind', lane)).toBeGreaterThan(pos('--tmpfs', '/data/ralph-studio'))
    expect(pos('--remount-ro', '/data/ralph-studio')).toBeGreaterThan(pos('--bind', lane))
  })

  it('on macOS denies an app data folder that holds the project (a lane) before the rules that open the project', () => {
    const lane = '/data/ralph-studio/lanes/1/lane-2/work'
    const hidden = [{ path: '/data/ralph-studio', kind: 'dir' as const }]
    const lines = seatbeltProfile(policy({ projectDir: lane, readOnly: [], writable: [], hidden })).split(
      '\n',
    )
    const deny = lines.indexOf('(deny file-read* file-write* (subpath "/data/ralph-studio"))')
    expect(deny).toBeGreaterThan(0)
    expect(lines.lastIndexOf('(deny file-read* file-write* (subpath "/data/ralph-studio"))')).toBe(deny)
    expect(lines.indexOf(`(allow file-read* (subpath "${lane}"))`)).toBeGreaterThan(deny)
    expect(lines.findIndex((l) => l.startsWith(`(allow file-write* (subpath "${lane}")`))).toBeGreaterThan(
      deny,
    )
  })

  it('gives /tmp its size, or none on a bubblewrap without --size', () => {
    expect(args.slice(at('--tmpfs', '/tmp') - 2, at('--tmpfs', '/tmp'))).toEqual([
      '--size',
      String(64 * 1024 * 1024),
    ])
    expect(args_({ ...p, sizedTmpfs: false })).not.toContain('--size')
  })

  it('sets the file-size limit, and a process limit above what the user runs already', () => {
    expect(limitsPrologue(defaultSandboxLimits, null)).toBe('ulimit -c 0; ulimit -f 4194304')
    expect(limitsPrologue({ ...defaultSandboxLimits, processes: 100 }, 250)).toContain('ulimit -u 350')
  })
})

describe("bwrapArgs: the app's own install", () => {
  // An AppImage runs from /tmp, which the sandbox replaces with a fresh one; a checkout may sit in a home folder.
  const npmrc = '/home/me/src/ralph/node_modules/pkg/.npmrc'
  const p = policy({
    hidden: [
      { path: '/home/me/.config/ralph-studio', kind: 'dir' },
      { path: '/tmp/.mount_ralph/resources/.env', kind: 'file' },
      { path: npmrc, kind: 'file' },
    ],
    hiddenRoots: ['/home', '/root'],
    appInstall: ['/tmp/.mount_ralph', '/home/me/src/ralph/node_modules'],
  })
  const args = bwrapArgs(p)
  const at = (flag: string, path: string) => indexOfPair(args, flag, path)
  const covered = (file: string) => args.findIndex((a, i) => a === '/dev/null' && args[i + 1] === file)

  it('binds it back read-only after /tmp and the homes are emptied, before the project; secrets in it stay covered', () => {
    const appImage = at('--ro-bind', '/tmp/.mount_ralph')
    const inHome = at('--ro-bind', '/home/me/src/ralph/node_modules')
    expect(appImage).toBeGreaterThan(at('--tmpfs', '/tmp'))
    expect(inHome).toBeGreaterThan(at('--tmpfs', '/home'))
    expect(at('--bind', '/work/app')).toBeGreaterThan(Math.max(appImage, inHome))
    expect(covered('/tmp/.mount_ralph/resources/.env')).toBeGreaterThan(appImage)
    // In a home folder, yet shown by the bind: covered again.
    expect(covered(npmrc)).toBeGreaterThan(inHome)
    expect(at('--bind', '/tmp/.mount_ralph')).toBe(-1)
  })

  it('is shown by the macOS profile too', () => {
    const text = seatbeltProfile({ ...p, hiddenRoots: ['/Users'], appInstall: ['/Users/me/Apps/Ralph.app'] })
    expect(text).toMatch(/\(allow file-read\* .*\(subpath "\/Users\/me\/Apps\/Ralph\.app"\)/)
  })
})

describe('seatbeltProfile (macOS; generated only, not run here)', () => {
  it('makes every home unreadable but the project, the scratch home and the toolchains', () => {
    const text = seatbeltProfile(
      policy({
        projectDir: '/Users/me/app',
        hiddenRoots: ['/Users', '/var/root'],
        homeAllowed: ['/Users/me/.nvm'],
      }),
    )
    const lines = text.split('\n')
    const deny = lines.indexOf('(deny file-read* (subpath "/Users") (subpath "/var/root"))')
    const allow = lines.findIndex((l) => l.startsWith('(allow file-read* (subpath "/Users/me/app")'))
    expect(deny).toBeGreaterThan(0)
    expect(allow).toBeGreaterThan(deny)
    expect(lines[allow]).toContain('(subpath "/Users/me/.nvm")')
    // Secrets are denied after, so an allowed folder never shows one.
    expect(lines.findIndex((l) => l.includes('/home/me/.netrc'))).toBeGreaterThan(allow)
  })

  it('allows writes to the project, denies .ralph except the model files, hides secrets', () => {
    const p = seatbeltProfile(policy({ network: false }))
    const lines = p.split('\n')
    const idx = (needle: string) => lines.findIndex((l) => l.includes(needle))
    expect(lines[0]).toBe('(version 1)')
    expect(idx('(deny file-write*)')).toBeLessThan(idx('(allow file-write* (subpath "/work/app")'))
    expect(idx('(allow file-write* (subpath "/work/app")')).toBeLessThan(
      idx('(deny file-write* (subpath "/work/app/.ralph"))'),
    )
    expect(idx('(deny file-write* (subpath "/work/app/.ralph"))')).toBeLessThan(
      idx('(literal "/work/app/.ralph/status.txt")'),
    )
    expect(p).toContain('(deny file-write* (subpath "/work/app/.git"))')
    expect(p).toContain('(deny file-read* file-write* (subpath "/home/me/.config/ralph-studio"))')
    expect(p).toContain('(deny file-read* file-write* (literal "/home/me/.netrc"))')
    expect(p).toContain('(deny network-outbound (remote ip))')
    expect(seatbeltProfile(policy())).not.toContain('network-outbound')
  })

  it('escapes quotes and backslashes in paths', () => {
    expect(seatbeltProfile(policy({ projectDir: '/w/a"b\\c' }))).toContain('(subpath "/w/a\\"b\\\\c")')
  })
})
