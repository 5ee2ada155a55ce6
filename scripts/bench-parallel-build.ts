// One `ralph build --json --parallel N` of `npm run bench:parallel`: a fresh copy of the bench project with its queue,
// a Ralph home of its own, the real compiled CLI against the scripted model, each NDJSON event stamped when it
// arrived, and the process's memory sampled while it runs.
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { addTask, setSpec } from '../src/main/queue'
import { memoryLogger } from '../src/main/workspace/logFile'
import { CHECK_SCRIPT, cliEnv } from '../tests/integration/build/buildCliFixture'
import { RALPH_BIN } from '../tests/helpers/cli'
import { llmCriterion, taskNotes } from './bench-parallel-model'
import { sampleMemory, type MemoryPeak } from './bench-parallel-memory'
import { makeProject } from './snapshot-workload'

/** A queue task of the bench: write WORD into FILE, checked by a command and by the model. */
export interface BenchTask {
  file: string
  word: string
}

/** The project every build starts from (copied per build): FILES source files, the check script, the spec. */
export function makeTemplate(files: number): string {
  const dir = makeProject(files)
  writeFileSync(join(dir, 'check.cjs'), CHECK_SCRIPT)
  writeFileSync(join(dir, 'spec.md'), '# Files\n')
  writeFileSync(join(dir, 'pair.txt'), 'neither\n')
  return dir
}

/** A copy of the template with `tasks` queued, and an empty Ralph home: the folders of one build. */
export async function prepareBuild(
  template: string,
  tasks: BenchTask[],
): Promise<{ project: string; home: string; ids: string[] }> {
  const parent = mkdtempSync(join(tmpdir(), 'bench-parallel-build-'))
  const project = join(parent, 'project')
  execFileSync('cp', ['-a', template, project])
  const home = join(parent, 'home')
  const options = { logger: memoryLogger() }
  await setSpec({ projectDir: project, spec: 'spec.md', options })
  const ids: string[] = []
  for (const t of tasks) {
    const added = await addTask({
      projectDir: project,
      name: `Write ${t.file} (${t.word})`,
      notes: taskNotes(t.file, t.word),
      accept: [`DET: \`node check.cjs ${t.file} ${t.word}\` exits 0`, llmCriterion(t.file, t.word)],
      options,
    })
    ids.push(added.ids[0]!)
  }
  return { project, home, ids }
}

export interface StampedEvent {
  /** ms since the clock's origin (performance.now()) when the line arrived. */
  at: number
  event: {
    type: string
    lane?: number | null
    taskId?: string
    task?: number
    status?: string
    verifiedAgain?: boolean
    [key: string]: unknown
  }
}

export interface BuildRun {
  parallel: number
  code: number | null
  startedAt: number
  wallMs: number
  events: StampedEvent[]
  memory: MemoryPeak
  stderr: string
}

/**
 * Runs the build. `cpuProfDir`: the ralph process writes a V8 CPU profile there (`node --cpu-prof`), named after
 * its `--parallel`, to see where its one thread's time goes.
 */
export function runBuildCli(
  dirs: { project: string; home: string },
  parallel: number,
  baseUrl: string,
  /** More flags (`--workers docker`), environment (`DOCKER_HOST`), and a folder for a CPU profile of the CLI. */
  extra: { args?: string[]; env?: NodeJS.ProcessEnv; cpuProfDir?: string } = {},
): Promise<BuildRun> {
  const prof = extra.cpuProfDir
    ? [
        '--cpu-prof',
        '--cpu-prof-dir',
        extra.cpuProfDir,
        '--cpu-prof-name',
        `ralph-parallel-${parallel}.cpuprofile`,
      ]
    : []
  const args = [
    ...prof,
    RALPH_BIN,
    ...['build', '--json', '--parallel', String(parallel), '--project', dirs.project],
    ...(extra.args ?? []),
  ]
  const startedAt = performance.now()
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...cliEnv(dirs.home, baseUrl), ...extra.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const memory = sampleMemory(child.pid!)
  const events: StampedEvent[] = []
  let partial = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => {
    const at = performance.now()
    const lines = (partial + chunk.toString()).split('\n')
    partial = lines.pop()!
    for (const line of lines)
      if (line.startsWith('{')) events.push({ at, event: JSON.parse(line) as StampedEvent['event'] })
  })
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  let peak: MemoryPeak | null = null
  let endedAt = 0
  const ended = () => {
    // The sampler stops when the process ends (a zombie's status has no memory lines left to read).
    peak ??= memory.stop()
    endedAt ||= performance.now()
  }
  child.on('exit', ended)
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => {
      ended()
      resolve({ parallel, code, startedAt, wallMs: endedAt - startedAt, events, memory: peak!, stderr })
    })
  })
}
