// Snapshot engine benchmark (issue 3): our engine vs plain git commands (the floor) vs isomorphic-git (the
// seed's engine), on synthetic projects. Usage: npm run bench:snapshots [-- --sizes 1000,10000 --runs 5]
import fs from 'node:fs'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import git from 'isomorphic-git'
import { SnapshotEngine } from '../src/main/snapshots'
import { shadowEnv } from '../src/main/snapshots/git'
import { makeProject, median, mutate, round, run, settleDisk, timed } from './snapshot-workload'
import { memoryLogger } from '../src/main/workspace/logFile'
const argv = process.argv.slice(2)
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`)
  return i === -1 ? undefined : argv[i + 1]
}
const SIZES = (arg('sizes') ?? '1000,10000,50000').split(',').map(Number)
const RUNS = Number(arg('runs') ?? 5)
/** isomorphic-git is slow on big trees: it stops repeating an operation after this budget (≥ 1 run). */
const ISO_BUDGET_MS = Number(arg('iso-budget-ms') ?? 120_000)
/** Above this size isomorphic-git is skipped: one run of it at 50,000 files takes tens of minutes. */
const ISO_MAX_SIZE = Number(arg('iso-max-size') ?? 10_000)
const OPS = ['first save', 'save 100 changed', 'diff', 'rollback 100+10+10', 'undo'] as const
type Op = (typeof OPS)[number]
type EngineName = 'ralph' | 'git' | 'isomorphic-git'

interface Driver {
  name: EngineName
  dir: string
  reset(): Promise<void>
  save(tag: string): Promise<void>
  diff(a: string, b: string): Promise<void>
  rollback(tag: string, safety: string): Promise<void>
  undo(safety: string, safety2: string): Promise<void>
}

function ralphDriver(dir: string): Driver {
  let engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
  return {
    name: 'ralph',
    dir,
    async reset() {
      rmSync(join(dir, '.ralph'), { recursive: true, force: true })
      engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
      await engine.open()
    },
    async save() {
      await engine.save({ kind: 'manual' })
    },
    async diff(a, b) {
      await engine.diff(a, b)
    },
    async rollback(tag) {
      await engine.rollback(tag)
    },
    async undo() {
      await engine.undo()
    },
  }
}

function rawGitDriver(dir: string): Driver {
  const gitDir = join(dir, '.rawgit')
  const env = shadowEnv()
  const g = (...args: string[]): Promise<unknown> =>
    run(
      'git',
      [`--git-dir=${gitDir}`, `--work-tree=${dir}`, '-c', 'user.name=b', '-c', 'user.email=b@b', ...args],
      {
        env,
        maxBuffer: 1 << 28,
      },
    )
  const saveAs = async (tag: string): Promise<void> => {
    await g('add', '-A')
    await g('commit', '-q', '--allow-empty', '--no-verify', '-m', tag)
    await g('tag', tag)
  }
  return {
    name: 'git',
    dir,
    async reset() {
      rmSync(gitDir, { recursive: true, force: true, maxRetries: 5 })
      await run('git', ['init', '-q', '--bare', gitDir], { env })
      writeFileSync(join(gitDir, 'info', 'exclude'), '.rawgit/\n')
      await g('config', 'core.bare', 'false')
      // A background auto-gc would race the next reset and skew timings; the engine disables it too.
      await g('config', 'gc.auto', '0')
    },
    save: saveAs,
    async diff(a, b) {
      await g('diff', '--name-status', a, b)
    },
    async rollback(tag, safety) {
      await saveAs(safety)
      await g('reset', '-q', '--hard', tag)
    },
    async undo(safety, safety2) {
      await saveAs(safety2)
      await g('reset', '-q', '--hard', safety)
    },
  }
}

function isoDriver(dir: string): Driver {
  const gitdir = join(dir, '.isogit')
  const author = { name: 'b', email: 'b@b', timestamp: Math.floor(Date.now() / 1000), timezoneOffset: 0 }
  const saveAs = async (tag: string): Promise<void> => {
    const matrix = await git.statusMatrix({ fs, dir, gitdir })
    for (const [filepath, head, work, stage] of matrix) {
      if (work === stage && head === work) continue
      if (work === 0) await git.remove({ fs, dir, gitdir, filepath: filepath as string })
      else await git.add({ fs, dir, gitdir, filepath: filepath as string })
    }
    await git.commit({ fs, dir, gitdir, message: tag, author })
    await git.tag({ fs, dir, gitdir, ref: tag })
  }
  return {
    name: 'isomorphic-git',
    dir,
    async reset() {
      rmSync(gitdir, { recursive: true, force: true })
      await git.init({ fs, dir, gitdir })
      writeFileSync(join(gitdir, 'info', 'exclude'), '.isogit/\n')
    },
    save: saveAs,
    async diff(a, b) {
      const seen: string[] = []
      await git.walk({
        fs,
        dir,
        gitdir,
        trees: [git.TREE({ ref: a }), git.TREE({ ref: b })],
        map: async (filepath, [x, y]) => {
          if (!x || !y) {
            seen.push(filepath)
            return filepath
          }
          if ((await x.type()) === 'tree') return filepath
          if ((await x.oid()) !== (await y.oid())) seen.push(filepath)
          return filepath
        },
      })
    },
    async rollback(tag, safety) {
      await saveAs(safety)
      await git.checkout({ fs, dir, gitdir, ref: tag, force: true })
    },
    async undo(safety, safety2) {
      await saveAs(safety2)
      await git.checkout({ fs, dir, gitdir, ref: safety, force: true })
    },
  }
}

function emptyTimes(): Record<Op, number[]> {
  return Object.fromEntries(OPS.map((o) => [o, [] as number[]])) as Record<Op, number[]>
}

/** One full round on a fresh store: first save, save of 100 changes, diff, rollback, undo. */
async function benchRound(d: Driver, n: number, r: number, times: Record<Op, number[]>): Promise<void> {
  await d.reset()
  await settleDisk()
  // Ralph's tags come from its own naming; the drivers take names only where they choose them.
  const base = `base-${r}`
  times['first save'].push(await timed(() => d.save(base)))
  mutate(d.dir, n, r * 2 + 1, false)
  times['save 100 changed'].push(await timed(() => d.save(`second-${r}`)))
  const [a, b] = d.name === 'ralph' ? await ralphTags(d.dir) : [base, `second-${r}`]
  times['diff'].push(await timed(() => d.diff(a, b)))
  mutate(d.dir, n, r * 2 + 2, true)
  times['rollback 100+10+10'].push(await timed(() => d.rollback(b, `safety-${r}`)))
  times['undo'].push(await timed(() => d.undo(`safety-${r}`, `safety2-${r}`)))
  process.stderr.write('.')
}

/**
 * Runs the drivers' rounds interleaved, the first driver alternating (ralph, git, git, ralph, …), so that both
 * meet the same phases of a noisy disk; isomorphic-git, far slower, runs afterwards within its time budget.
 */
async function benchInterleaved(drivers: Driver[], n: number, runs: number): Promise<Record<Op, number[]>[]> {
  const times = drivers.map(() => emptyTimes())
  for (let r = 0; r < runs; r++) {
    const order = drivers.map((_, i) => i)
    if (r % 2 === 1) order.reverse()
    for (const i of order) await benchRound(drivers[i]!, n, r, times[i]!)
  }
  return times
}

async function benchDriver(
  d: Driver,
  n: number,
  runs: number,
  budgetMs: number,
): Promise<Record<Op, number[]>> {
  const times = emptyTimes()
  const started = performance.now()
  for (let r = 0; r < runs; r++) {
    if (r > 0 && performance.now() - started > budgetMs) break
    await benchRound(d, n, r, times)
  }
  return times
}

async function ralphTags(dir: string): Promise<[string, string]> {
  const items = (await new SnapshotEngine({ projectDir: dir, logger: memoryLogger() }).list()).items
  return [items[1]!.tag, items[0]!.tag]
}

interface Row {
  size: number
  op: Op
  ralphMs: number
  gitMs: number
  isoMs: number | null
  isoRuns: number
  ratioVsGit: number
  speedupVsIso: number | null
}

async function main(): Promise<void> {
  const rows: Row[] = []
  const raw: Record<string, unknown> = {}
  for (const n of SIZES) {
    process.stderr.write(`\n${n} files: generating… `)
    const dirs = [makeProject(n), makeProject(n), makeProject(n)]
    try {
      const [ours, plain, iso] = [ralphDriver(dirs[0]!), rawGitDriver(dirs[1]!), isoDriver(dirs[2]!)]
      process.stderr.write('ralph and git, interleaved ')
      const [tr, tg] = (await benchInterleaved([ours, plain], n, RUNS)) as [
        Record<Op, number[]>,
        Record<Op, number[]>,
      ]
      process.stderr.write(' isomorphic-git ')
      const ti = n <= ISO_MAX_SIZE ? await benchDriver(iso, n, RUNS, ISO_BUDGET_MS) : emptyTimes()
      raw[n] = { ralph: tr, git: tg, isomorphicGit: ti }
      for (const op of OPS) {
        const ralphMs = median(tr[op])
        const gitMs = median(tg[op])
        const isoMs = ti[op].length ? median(ti[op]) : null
        rows.push({
          size: n,
          op,
          ralphMs: round(ralphMs),
          gitMs: round(gitMs),
          isoMs: isoMs === null ? null : round(isoMs),
          isoRuns: ti[op].length,
          ratioVsGit: round(ralphMs / gitMs, 2),
          speedupVsIso: isoMs === null ? null : round(isoMs / ralphMs, 1),
        })
      }
    } finally {
      for (const d of dirs) rmSync(d, { recursive: true, force: true })
    }
  }
  process.stderr.write('\n')
  const { stdout: gitVersion } = await run('git', ['--version'])
  const result = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, git: gitVersion.trim() },
    runs: RUNS,
    note: 'Medians in ms. "git" = plain git commands (add -A, commit, tag, diff --name-status, reset --hard); rollback and undo include the safety snapshot for every engine. Ralph and git rounds alternate (and alternate which goes first), after a sync, so both see the same disk conditions.',
    rows,
    raw,
  }
  mkdirSync('bench-results', { recursive: true })
  const file = join('bench-results', `snapshots-${result.date.replace(/[:.]/g, '-')}.json`)
  writeFileSync(file, JSON.stringify(result, null, 2))
  writeFileSync(join('bench-results', 'snapshots-latest.json'), JSON.stringify(result, null, 2))
  const header = ['files', 'operation', 'ralph ms', 'git ms', 'ralph/git', 'iso-git ms', 'iso/ralph']
  const lines = rows.map((r) => [
    String(r.size),
    r.op,
    r.ralphMs.toFixed(1),
    r.gitMs.toFixed(1),
    `${r.ratioVsGit.toFixed(2)}×`,
    r.isoMs === null ? '—' : `${r.isoMs.toFixed(0)}${r.isoRuns < RUNS ? ` (${r.isoRuns} run)` : ''}`,
    r.speedupVsIso === null ? '—' : `${r.speedupVsIso.toFixed(1)}×`,
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const fmt = (cells: string[]): string => '| ' + cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ') + ' |'
  console.log(fmt(header))
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|')
  for (const l of lines) console.log(fmt(l))
  console.log(`\nWritten to ${file}`)
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
