// `npm run bench:loop`: the loop's own overhead per iteration with an instant fake provider (model latency and
// project commands excluded), and the prompt size per iteration for a 500-file project with a 300-line plan.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildIterationPrompt } from '../src/main/loop/context'
import { RalphState } from '../src/main/loop/ralphState'
import { runTask } from '../src/main/loop/runTask'
import { openDatabase } from '../src/main/store/database'
import { RunsRepo } from '../src/main/store/runsRepo'
import { startFakeLlmServer } from '../tests/fixtures/fakeLlmServer'
import { memoryLogger } from '../src/main/workspace/logFile'

const ITERATIONS = 40
const FILES = 500

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

function planOf(lines: number): string {
  const sections: string[] = []
  let i = 0
  while (sections.join('\n').split('\n').length < lines - 12) {
    sections.push(
      `        <Section gumdrop="features" files={['src/module${i}/index.ts']}>\n          <Gumdrop use="card" />\n          <Slot name="s${i}" description="part ${i}" />\n        </Section>`,
    )
    i++
  }
  return `export default (\n  <App name="Bench">\n    <Theme mood="calm" />\n    <Screen name="home">\n      <Content>\n${sections.join('\n')}\n      </Content>\n    </Screen>\n  </App>\n)\n`
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'ralph-bench-loop-'))
  const project = join(root, 'project')
  for (let i = 0; i < FILES; i++) {
    const dir = join(project, 'src', `module${i % 50}`)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, `file${i}.ts`), `export const value${i} = ${i}\n`.repeat(20))
  }
  mkdirSync(join(project, '.ralph'), { recursive: true })
  const plan = planOf(300)
  writeFileSync(join(project, '.ralph', 'plan.tsx'), plan)
  writeFileSync(join(project, '.ralph', 'phase.txt'), 'build\n')

  const llm = await startFakeLlmServer()
  // Parse, then per iteration: one write (real progress, so no stall) and an answer without tools.
  llm.enqueue({
    kind: 'text',
    text: JSON.stringify({
      type: 'bugfix',
      title: 'bench',
      requirements: [],
      scope: { preserve: [], affectedFiles: [] },
      clarification: null,
    }),
  })
  for (let i = 0; i < ITERATIONS; i++) {
    llm.enqueue({
      kind: 'tools',
      calls: [
        { name: 'write_file', arguments: { path: `src/gen/out${i}.ts`, content: `export const n = ${i}\n` } },
      ],
    })
    llm.enqueue({ kind: 'text', text: 'Continuing.' })
  }
  const db = openDatabase(join(root, 'ralph.db'))
  const runs = new RunsRepo(db)
  const starts: number[] = []
  const prompts: number[] = []
  const began = performance.now()
  await runTask({
    projectDir: project,
    logger: memoryLogger(),
    message: 'fix the bench',
    model: { provider: 'openai-compatible', model: 'fake-model', baseUrl: llm.baseUrl, apiKey: null },
    maxIterations: ITERATIONS,
    signal: new AbortController().signal,
    runs,
    emit: (e) => {
      if (e.type === 'iteration.started') starts.push(performance.now())
      if (e.type === 'task.failed' || e.type === 'task.completed') starts.push(performance.now())
    },
  })
  const total = performance.now() - began
  const usage = db
    .prepare<
      [],
      { iteration: number; ms: number }
    >("SELECT iteration, SUM(duration_ms) AS ms FROM llm_usage WHERE purpose = 'iteration' GROUP BY iteration ORDER BY iteration")
    .all()
  for (const row of db
    .prepare<[], { p: number }>('SELECT prompt_tokens_estimate AS p FROM iterations ORDER BY number')
    .all()) {
    prompts.push(row.p)
  }
  const overheads: number[] = []
  for (let i = 0; i + 1 < starts.length; i++) {
    const model = usage.find((u) => u.iteration === i + 1)?.ms ?? 0
    overheads.push(starts[i + 1]! - starts[i]! - model)
  }
  await llm.close()
  db.close()

  // Boundedness: the same prompt once the project has ten times the files.
  for (let i = FILES; i < FILES * 10; i++) {
    const dir = join(project, 'src', `module${i % 50}`)
    writeFileSync(join(dir, `file${i}.ts`), `export const value${i} = ${i}\n`)
  }
  const state = new RalphState(project)
  const big = await buildIterationPrompt({
    state,
    taskNumber: 1,
    task: null,
    phase: 'build',
    iteration: 1,
    maxIterations: 50,
  })
  rmSync(root, { recursive: true, force: true })

  const result = {
    when: new Date().toISOString(),
    iterations: overheads.length,
    files: FILES,
    planLines: plan.split('\n').length,
    overheadMs: {
      median: median(overheads),
      p90: [...overheads].sort((a, b) => a - b)[Math.floor(overheads.length * 0.9)],
      target: 20,
    },
    promptTokens: { median: median(prompts), max: Math.max(...prompts), with5000Files: big.tokensEstimate },
    totalMs: Math.round(total),
  }
  console.table({
    'harness overhead / iteration (median ms)': {
      value: result.overheadMs.median.toFixed(2),
      target: '≤ 20',
    },
    'harness overhead / iteration (p90 ms)': { value: result.overheadMs.p90?.toFixed(2), target: '' },
    'prompt size / iteration (tokens, est.), 500 files': {
      value: result.promptTokens.median,
      target: 'bounded',
    },
    'prompt size / iteration (tokens, est.), 5,000 files': {
      value: result.promptTokens.with5000Files,
      target: 'bounded',
    },
  })
  mkdirSync('bench-results', { recursive: true })
  writeFileSync(join('bench-results', 'loop.json'), JSON.stringify(result, null, 2) + '\n')
}

void main()
