// Issue 25: the in-process snapshot writer against the git-process path, both inside one long-running process
// (the app's case: one engine reused across operations), on the bench:snapshots workloads. Rounds alternate
// A/B (and which goes first), after a sync, with warm-up rounds not counted. Ratios are git / in-process medians.
// Usage: npx tsx scripts/bench-snapshot-paths.ts [--sizes 1000,10000] [--pairs 5] [--warmup 1]
//        [--steps firstSave,stage,commit,refs]   (the steps switched to git in the B rounds; default all)
import { rmSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import { SnapshotEngine } from '../src/main/snapshots'
import { inProcessWriter } from '../src/main/snapshots/writerPaths'
import { makeProject, median, mutate, round, run, settleDisk, timed } from './snapshot-workload'
import { memoryLogger } from '../src/main/workspace/logFile'

const argv = process.argv.slice(2)
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`)
  return i === -1 ? undefined : argv[i + 1]
}
type Step = keyof typeof inProcessWriter
const ALL_STEPS = Object.keys(inProcessWriter) as Step[]
const SIZES = (arg('sizes') ?? '1000,10000').split(',').map(Number)
const PAIRS = Number(arg('pairs') ?? 5)
const WARMUP = Number(arg('warmup') ?? 1)
const STEPS = (arg('steps')?.split(',') ?? ALL_STEPS) as Step[]
for (const s of STEPS)
  if (!ALL_STEPS.includes(s)) throw new Error(`Unknown step ${s}: ${ALL_STEPS.join(', ')}`)

const OPS = ['first save', 'save 100 changed', 'diff', 'rollback 100+10+10', 'undo'] as const
type Op = (typeof OPS)[number]
type Variant = 'in-process' | 'git'

function usePaths(variant: Variant): void {
  for (const s of ALL_STEPS) inProcessWriter[s] = variant === 'in-process' || !STEPS.includes(s)
}

/** One project; every round starts a fresh store and engine in this same, warm process (as bench:snapshots). */
class Subject {
  private engine: SnapshotEngine
  readonly times = Object.fromEntries(OPS.map((o) => [o, [] as number[]])) as Record<Op, number[]>
  constructor(
    readonly variant: Variant,
    readonly dir: string,
  ) {
    this.engine = new SnapshotEngine({ projectDir: dir, logger: memoryLogger() })
  }

  async round(n: number, r: number, record: boolean): Promise<void> {
    usePaths(this.variant)
    rmSync(join(this.dir, '.ralph'), { recursive: true, force: true })
    this.engine = new SnapshotEngine({ projectDir: this.dir, logger: memoryLogger() })
    await this.engine.open()
    await settleDisk()
    const t: Partial<Record<Op, number>> = {}
    t['first save'] = await timed(async () => void (await this.engine.save({ kind: 'manual' })))
    mutate(this.dir, n, r * 2 + 1, false)
    t['save 100 changed'] = await timed(async () => void (await this.engine.save({ kind: 'manual' })))
    const items = (await this.engine.list()).items
    t['diff'] = await timed(async () => void (await this.engine.diff(items[1]!.tag, items[0]!.tag)))
    mutate(this.dir, n, r * 2 + 2, true)
    t['rollback 100+10+10'] = await timed(async () => void (await this.engine.rollback(items[0]!.tag)))
    t['undo'] = await timed(async () => void (await this.engine.undo()))
    if (record) for (const op of OPS) this.times[op].push(t[op]!)
    process.stderr.write(record ? (this.variant === 'git' ? 'g' : 'i') : 'w')
  }
}

async function main(): Promise<void> {
  const rows: { size: number; op: Op; inProcessMs: number; gitMs: number; ratio: number }[] = []
  const raw: Record<number, Record<Variant, Record<Op, number[]>>> = {}
  for (const n of SIZES) {
    process.stderr.write(`\n${n} files: generating… `)
    const dirs = [makeProject(n), makeProject(n)]
    try {
      const a = new Subject('in-process', dirs[0]!)
      const b = new Subject('git', dirs[1]!)
      for (let w = 0; w < WARMUP; w++) for (const s of [a, b]) await s.round(n, 1000 + w, false)
      for (let r = 0; r < PAIRS; r++) for (const s of r % 2 ? [b, a] : [a, b]) await s.round(n, r, true)
      raw[n] = { 'in-process': a.times, git: b.times }
      for (const op of OPS) {
        const inProcessMs = median(a.times[op])
        const gitMs = median(b.times[op])
        rows.push({
          size: n,
          op,
          inProcessMs: round(inProcessMs),
          gitMs: round(gitMs),
          ratio: round(gitMs / inProcessMs, 2),
        })
      }
    } finally {
      for (const d of dirs) rmSync(d, { recursive: true, force: true })
    }
  }
  usePaths('in-process')
  process.stderr.write('\n')
  const { stdout: gitVersion } = await run('git', ['--version'])
  console.log(
    JSON.stringify({
      date: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        model: cpus()[0]?.model,
        node: process.version,
        git: gitVersion.trim(),
      },
      pairs: PAIRS,
      warmup: WARMUP,
      stepsSwitchedToGit: STEPS,
      raw,
    }),
  )
  console.log(`\nSteps on git in the B rounds: ${STEPS.join(', ')}; ${PAIRS} A/B pairs, medians in ms`)
  console.log('| files | operation | in-process ms | git ms | git / in-process |')
  console.log('|---|---|---|---|---|')
  for (const r of rows) {
    console.log(
      `| ${r.size} | ${r.op} | ${r.inProcessMs.toFixed(1)} | ${r.gitMs.toFixed(1)} | ${r.ratio.toFixed(2)}× |`,
    )
  }
}

main().catch((err: unknown) => {
  console.error(err)
  process.exit(1)
})
