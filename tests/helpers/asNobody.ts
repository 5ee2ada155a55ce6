import { execFileSync } from 'node:child_process'

/**
 * Root ignores file permissions, so "a folder without write permission" can only be tested as another user.
 * When the tests run as root we run the command as `nobody` through setpriv; otherwise as ourselves.
 */
export function unprivilegedPrefix(): string[] {
  if (process.getuid?.() !== 0) return []
  try {
    execFileSync('setpriv', ['--version'], { stdio: 'ignore' })
  } catch {
    throw new Error('Tests run as root need setpriv (util-linux) to act as an unprivileged user.')
  }
  return ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups']
}
