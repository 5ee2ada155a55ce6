// The synthetic projects and changes the snapshot benchmarks run on (bench-snapshots.ts, bench-snapshot-paths.ts).
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import { mkdirSync, mkdtempSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'

export const run = promisify(execFile)

export function makeProject(n: number): string {
  const dir = mkdtempSync(join(tmpdir(), `bench-snap-${n}-`))
  for (let i = 0; i < n; i++) {
    const d = join(dir, 'src', `m${i % 20}`, `s${Math.floor(i / 20) % 25}`, `t${Math.floor(i / 500) % 10}`)
    mkdirSync(d, { recursive: true })
    writeFileSync(join(d, `f${i}.ts`), `export const v${i} = ${i}\n// ${'x'.repeat(i % 200)}\n`)
  }
  for (let i = 0; i < 2000; i++) {
    const d = join(dir, 'node_modules', `pkg${i % 50}`, 'lib')
    mkdirSync(d, { recursive: true })
    writeFileSync(join(d, `m${i}.js`), `module.exports = ${i}\n`)
  }
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\n')
  return dir
}

function filePath(dir: string, i: number): string {
  return join(
    dir,
    'src',
    `m${i % 20}`,
    `s${Math.floor(i / 20) % 25}`,
    `t${Math.floor(i / 500) % 10}`,
    `f${i}.ts`,
  )
}

/** Changes 100 files spread across the tree; optionally adds and deletes 10. */
export function mutate(dir: string, n: number, seed: number, addDelete: boolean): void {
  const step = Math.max(1, Math.floor(n / 100))
  for (let k = 0; k < 100; k++) {
    // Earlier runs may have deleted the file (undo keeps their deletions), and with it its folder.
    const f = filePath(dir, (k * step + seed) % n)
    mkdirSync(dirname(f), { recursive: true })
    fs.appendFileSync(f, `// change ${seed}\n`)
  }
  if (!addDelete) return
  for (let k = 0; k < 10; k++) {
    const d = join(dir, 'src', 'added', `r${seed}`)
    mkdirSync(d, { recursive: true })
    writeFileSync(join(d, `new${k}.ts`), `export const n = ${k}\n`)
  }
  for (let k = 0; k < 10; k++) {
    const f = filePath(dir, (k * step * 7 + seed * 13 + 1) % n)
    if (fs.existsSync(f)) unlinkSync(f)
  }
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

export async function timed(fn: () => Promise<void>): Promise<number> {
  const t = performance.now()
  await fn()
  return performance.now() - t
}

/**
 * Flushes dirty pages before a round is timed, so that no round pays for the writeback of what came before it
 * (generating projects, deleting the previous round's store).
 */
export async function settleDisk(): Promise<void> {
  // Best effort: a machine without `sync` times its rounds with the writeback in them, which the warning says.
  await run('sync').catch((err: unknown) =>
    console.warn(`sync could not flush the disk before a round: ${String(err)}`),
  )
}

export function round(x: number, digits = 1): number {
  const f = 10 ** digits
  return Math.round(x * f) / f
}
