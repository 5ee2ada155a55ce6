// A kernel-enforced process limit for one command, where this machine lets the app make a cgroup: the v1 "pids"
// hierarchy, or a cgroup v2 whose pids controller is delegated to the app's own cgroup. Most desktops allow
// neither (cgroup v2 without systemd delegation), so runCommand.ts also runs a watchdog; the cgroup is what
// stops a fork bomb before it can fill the machine's process table, the watchdog what stops the command.
import { mkdir, readFile, readdir, rmdir, writeFile, access, constants } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fallbackTo, isDenied, isMissing, noteFailure, unlessMissing, type Logger } from '../workspace'

export interface CommandCgroup {
  /** Writing a PID here moves that process (and what it starts later) into the cgroup. */
  procsFile: string
  /** True once a fork failed because the cgroup was full. */
  limitHit(): Promise<boolean>
  /** Removes the cgroup (once it is empty). */
  remove(): Promise<void>
}

const ROOT = '/sys/fs/cgroup'
let counter = 0
let swept = false
const OURS = /^ralph-command-(\d+)-\d+$/

/**
 * The cgroups a Ralph process that is gone left behind (a build killed with -9 never removes its commands'
 * cgroups): once per process, each one named for a dead PID is removed. rmdir only removes an empty cgroup, so a
 * cgroup whose processes still run stays; a PID reused by another process keeps its cgroup until that one ends.
 */
export async function sweepLeftoverCgroups(base: string, log: Logger): Promise<void> {
  const names = await readdir(base).catch(unlessMissing(log, `cgroup: ${base} unreadable`, [] as string[]))
  for (const name of names) {
    const pid = OURS.exec(name)?.[1]
    if (pid === undefined || Number(pid) === process.pid || existsSync(`/proc/${pid}`)) continue
    await rmdir(join(base, name)).catch(
      fallbackTo(log, `cgroup: the leftover ${name} could not be removed`, undefined),
    )
  }
}

/** The folder of this process's own cgroup in the hierarchy that has the pids controller, or null. */
async function ownPidsCgroup(log: Logger): Promise<string | null> {
  const lines = (
    await readFile('/proc/self/cgroup', 'utf8').catch(
      unlessMissing(log, 'cgroup: /proc/self/cgroup unreadable', ''),
    )
  ).split('\n')
  const v1 = lines.find((l) => l.split(':')[1]?.split(',').includes('pids'))
  if (v1 !== undefined) return join(ROOT, 'pids', v1.split(':').slice(2).join(':'))
  const v2 = lines.find((l) => l.startsWith('0::'))
  if (v2 === undefined) return null
  const dir = join(ROOT, v2.slice(3))
  const delegated = await readFile(join(dir, 'cgroup.subtree_control'), 'utf8').catch(
    unlessMissing(log, 'cgroup: the delegated controllers could not be read', ''),
  )
  return delegated.split(/\s+/).includes('pids') ? dir : null
}

/** A fresh cgroup limited to `maxTasks` processes and threads, or null where none can be made. */
export async function createPidsCgroup(maxTasks: number, log: Logger): Promise<CommandCgroup | null> {
  if (process.platform !== 'linux') return null
  const base = await ownPidsCgroup(log)
  if (base === null) return null
  try {
    await access(base, constants.W_OK)
    if (!swept) {
      swept = true
      await sweepLeftoverCgroups(base, log)
    }
    const dir = join(base, `ralph-command-${process.pid}-${++counter}`)
    await mkdir(dir)
    try {
      await writeFile(join(dir, 'pids.max'), String(maxTasks))
    } catch (err) {
      await rmdir(dir).catch(fallbackTo(log, `cgroup: ${dir} could not be removed`, undefined))
      throw err
    }
    return {
      procsFile: join(dir, 'cgroup.procs'),
      async limitHit() {
        const events = await readFile(join(dir, 'pids.events'), 'utf8').catch(
          unlessMissing(log, 'cgroup: pids.events unreadable', ''),
        )
        return Number(/^max (\d+)/m.exec(events)?.[1] ?? 0) > 0
      },
      async remove() {
        // The last processes may take a moment to be reaped after the namespace died.
        let last: unknown
        for (let i = 0; i < 40; i++) {
          try {
            await rmdir(dir)
            return
          } catch (err) {
            if (isMissing(err)) return
            last = err
            await new Promise((r) => setTimeout(r, 25))
          }
        }
        noteFailure(log, `cgroup: ${dir} is left behind (still busy)`, last)
      },
    }
  } catch (err) {
    // Most machines do not let an app make a cgroup (read-only /sys/fs/cgroup, no delegation): expected there.
    if (!isDenied(err) && (err as NodeJS.ErrnoException).code !== 'EROFS')
      noteFailure(log, 'cgroup: no pids cgroup could be made; the watchdog alone limits processes', err)
    return null
  }
}
