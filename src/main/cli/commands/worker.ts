import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { openDatabase } from '../../store/database'
import { printResultTar, runWorker, workerAppData, type WrittenResult } from '../../workers'
import { noteFailure } from '../../workspace/failures'
import { expectPositionals, stringFlag, usageError } from '../args'
import { writeJson } from '../output'
import { ExitCode, type CliCommand } from '../types'

const usage = `Usage: ralph worker --job PATH --out DIR [--result-stdout]

Runs one job of a build with lanes on this machine or in a container: the job folder a coordinator made (job.json
and base.bundle), or one tar file of the two. It unpacks the job's base snapshot into a scratch lane, runs the
task's loop exactly as a local lane does (setup, iterations, gates, snapshots), and writes its result to DIR (absent
or empty):
  result.json        how the task ended (status, reason, the task's snapshot commits, cost, which sandbox)
  result.bundle      a git bundle of the task's task-N-pre and task-N-post snapshots, based on the job's base
  transcript.ndjson  every event the worker printed
The worker never verifies: the coordinator merges the result and verifies it itself, with its own nonce.

--result-stdout  also prints the result folder at the end, after the last event, as one tar file in base64 lines
                 between two marker lines (its size and SHA-256): how a Kubernetes worker's result comes back
                 through its pod's log.

Events stream on stdout as NDJSON (the shapes of \`ralph build --json\`, each with its "lane"), between
worker.started and worker.finished. The model is the job's (provider, base URL, model); its key comes only from
this environment: RALPH_API_KEY, or the provider's own variable (OPENAI_API_KEY, ANTHROPIC_API_KEY,
OPENROUTER_API_KEY). A job never carries a key.

The model's commands run in bubblewrap when it works here (probed); where it cannot run (inside most containers)
the container is the sandbox, and the worker says so once (a worker.sandbox event and a line on stderr).

Exit codes: 0 the task is complete, 3 it asks a question, 4 it failed, 5 provider or configuration error,
2 a job or folder that cannot be used, 130 stopped.`

function exitFor({ result }: WrittenResult): number {
  switch (result.status) {
    case 'complete':
      return ExitCode.ok
    case 'needs-clarification':
      return ExitCode.needsClarification
    case 'stopped':
    case 'interrupted':
      return ExitCode.interrupted
    default:
      return result.reason === 'provider' || result.reason === 'usage-limit'
        ? ExitCode.config
        : ExitCode.taskFailed
  }
}

export const workerCommand: CliCommand = {
  name: 'worker',
  usage,
  options: { job: { type: 'string' }, out: { type: 'string' }, 'result-stdout': { type: 'boolean' } },
  async run(ctx) {
    expectPositionals(ctx.positionals, 0, 0, 'worker --job PATH --out DIR', 'worker')
    const job = stringFlag(ctx.values, 'job')
    const out = stringFlag(ctx.values, 'out')
    if (!job) throw usageError('worker', '--job needs the job folder: --job PATH.')
    if (!out) throw usageError('worker', '--out needs the folder for the result: --out DIR.')
    // The worker's own scratch: the unpacked base, its lane, its database. Nothing of it is kept.
    const workDir = await mkdtemp(join(tmpdir(), 'ralph-worker-'))
    try {
      await mkdir(workerAppData(workDir), { recursive: true, mode: 0o700 })
      const db = openDatabase(join(workerAppData(workDir), 'ralph.db'))
      try {
        const written = await runWorker({
          jobPath: resolve(job),
          outDir: resolve(out),
          workDir,
          db,
          env: ctx.env,
          signal: ctx.signal,
          logger: ctx.logger,
          emit: (event) => {
            writeJson(ctx.stdout, event)
            if (event.type === 'worker.sandbox') ctx.stderr.write(`ralph worker: ${event.message}\n`)
          },
        })
        if (ctx.values['result-stdout'] === true)
          await printResultTar(resolve(out), workDir, (line) => ctx.stdout.write(line))
        return exitFor(written)
      } finally {
        db.close()
      }
    } finally {
      await rm(workDir, { recursive: true, force: true }).catch((err: unknown) =>
        noteFailure(ctx.logger, `ralph worker: its scratch folder ${workDir} stays`, err),
      )
    }
  },
}
