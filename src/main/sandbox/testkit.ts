// Helpers for the sandbox tests: real processes, found on the host by a unique argument.
import { readdir, readFile } from 'node:fs/promises'
import { isGone } from '../workspace/failures'

/** A process that ended while we looked: its /proc files are gone. */
const gone = (err: unknown): string => {
  if (isGone(err)) return ''
  throw err
}

/** Host PIDs of live (non-zombie) processes whose command line has `arg` as one of its words. */
export async function processesWithArg(arg: string): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((p) => /^\d+$/.test(p))
  const found = await Promise.all(
    pids.map(async (pid) => {
      const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(gone)
      if (!cmdline.split('\0').includes(arg)) return null
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(gone)
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
      return state === undefined || state === 'Z' || stat === '' ? null : Number(pid)
    }),
  )
  return found.filter((p): p is number => p !== null)
}

/** Polls until `check` holds or the deadline passes; returns the last answer. */
export async function waitFor(check: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (await check()) return true
    await new Promise((r) => setTimeout(r, 25))
  }
  return check()
}

/** A `sleep` duration no other process on the machine uses, to find the one a test started. */
export function uniqueSleep(): string {
  return `${1000 + Math.floor(Math.random() * 1000)}.${String(process.pid % 1000).padStart(3, '0')}${Math.floor(
    Math.random() * 1000,
  )}`
}
