import { describe, expect, it } from 'vitest'
import { bwrapArgs } from './bwrap'
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

describe('seatbeltProfile (macOS; generated only, not run here)', () => {
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
