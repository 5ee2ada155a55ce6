// The macOS sandbox: a sandbox-exec (Seatbelt) profile generated per command.
//
// UNTESTED: no macOS machine builds or tests this project. Kept deliberately small; later rules win in SBPL.
// The probe in detect.ts runs a generated profile, so a rule this macOS rejects turns the sandbox off (and
// commands then need the user's permission) instead of failing every command.
// macOS has no PID namespace, so a `setsid` daemon can outlive the command's process group there, and the
// process and memory watchdog (Linux) has nothing to count: there only the file-size limit (ulimit, set by
// prepare.ts) applies; /tmp is the system's, not a size-limited one.
import { isWithin, type SandboxPath, type SandboxPolicy } from './policy'

/** An SBPL string literal. */
const lit = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
const filter = (p: SandboxPath): string =>
  p.kind === 'dir' ? `(subpath ${lit(p.path)})` : `(literal ${lit(p.path)})`

export function seatbeltProfile(policy: SandboxPolicy): string {
  // A hidden folder that holds the project (a lane in the app data folder) is denied first, so that the project's own
  // rules below win inside it; metadata stays readable so the path to the project resolves.
  const holding = policy.hidden.filter((h) => h.kind === 'dir' && isWithin(policy.projectDir, h.path))
  const rules = [
    '(version 1)',
    '(allow default)',
    ...holding.flatMap((h) => [
      `(deny file-read* file-write* ${filter(h)})`,
      `(allow file-read-metadata ${filter(h)})`,
      `(allow file-read* (subpath ${lit(policy.projectDir)}))`,
    ]),
    // Writes only in the project, the scratch home and the temp folders.
    '(deny file-write*)',
    `(allow file-write* (subpath ${lit(policy.projectDir)}) (subpath ${lit(policy.home)})` +
      ' (subpath "/private/tmp") (subpath "/private/var/folders") (subpath "/dev"))',
  ]
  // Every home folder unreadable, but for the project, the scratch home, the toolchain folders and the app. Metadata
  // stays readable so paths through a home folder still resolve (realpath, getcwd).
  if (policy.hiddenRoots.length > 0) {
    rules.push(`(deny file-read* ${policy.hiddenRoots.map((r) => `(subpath ${lit(r)})`).join(' ')})`)
    rules.push(`(allow file-read-metadata ${policy.hiddenRoots.map((r) => `(subpath ${lit(r)})`).join(' ')})`)
    const shown = [policy.projectDir, policy.home, ...policy.homeAllowed, ...policy.appInstall]
    rules.push(`(allow file-read* ${shown.map((d) => `(subpath ${lit(d)})`).join(' ')})`)
  }
  for (const p of policy.readOnly) rules.push(`(deny file-write* ${filter(p)})`)
  if (policy.writable.length > 0) {
    rules.push(`(allow file-write* ${policy.writable.map((f) => `(literal ${lit(f)})`).join(' ')})`)
  }
  for (const h of policy.hidden)
    if (!holding.includes(h)) rules.push(`(deny file-read* file-write* ${filter(h)})`)
  // Other processes' arguments and environment (the harness's API key) stay out of reach.
  rules.push('(deny process-info*)', '(allow process-info* (target self))')
  if (!policy.network) rules.push('(deny network-outbound (remote ip))', '(deny network-inbound (local ip))')
  return rules.join('\n')
}
