import { realpath } from 'node:fs/promises'
import { z } from 'zod'
import { defineTool } from './defineTool'
import {
  captureHarnessFiles,
  marksComplete,
  readStatus,
  restoreHarnessFiles,
  STATUS_FILE,
} from './ralphFiles'
import { COMMAND_MAX_TIMEOUT_MS, runShellCommand, type ShellOutcome } from './shell'
import { errorResult, type RunContext, type ToolResult } from './types'

export { COMMAND_MAX_TIMEOUT_MS }
export const COMMAND_MIN_TIMEOUT_MS = 1000
const EXIT_FILE_TOO_LARGE = 128 + 25 // SIGXFSZ

const schema = z.strictObject({
  command: z
    .string()
    .describe(
      'Shell command (/bin/sh -c) run in the project root, without a terminal or input. Use it to build, test, ' +
        'lint, install dependencies or run scripts. It must finish on its own: never start servers or watchers ' +
        'that keep running (use "run" modes, e.g. "npx vitest run"); background processes are stopped when ' +
        'the command ends. It runs in a sandbox: the project is writable; .git, .ralph/ (except plan.tsx, ' +
        'summary.md and status.txt: write those with > or write_file, not sed -i) and the rest of the system ' +
        'are read-only; HOME is a scratch folder; no API keys or other secrets are in its environment.',
    ),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      `Kill the command (and everything it started) after this many milliseconds. Default from the project ` +
        `settings (usually 120000); at most ${COMMAND_MAX_TIMEOUT_MS}.`,
    ),
})
export type RunCommandArgs = z.infer<typeof schema>

export async function runCommandTool(args: RunCommandArgs, ctx: RunContext): Promise<ToolResult> {
  if (args.command.trim() === '') return errorResult('command is empty. Give a shell command to run.')
  if (ctx.signal.aborted) return errorResult('Not run: the task was cancelled.')
  const requested = args.timeout_ms ?? ctx.commandTimeoutMs
  const timeoutMs = Math.min(Math.max(Math.round(requested), COMMAND_MIN_TIMEOUT_MS), COMMAND_MAX_TIMEOUT_MS)
  const cwd = await realpath(ctx.projectDir)
  const harnessBefore = await captureHarnessFiles(cwd)
  const statusBefore = await readStatus(cwd)

  const r = await runShellCommand(args.command, {
    cwd,
    timeoutMs,
    signal: ctx.signal,
    env: ctx.env,
    logger: ctx.logger,
  })

  const restored = await restoreHarnessFiles(cwd, harnessBefore)
  const statusAfter = await readStatus(cwd)
  // A shell write of "complete" to status.txt counts like write_file's (DESIGN.md §7).
  const completed =
    statusAfter !== null &&
    marksComplete(STATUS_FILE, statusAfter) &&
    !marksComplete(STATUS_FILE, statusBefore ?? '')

  if (r.spawnError) {
    return errorResult(
      r.spawnError.startsWith('Not run:') ? r.spawnError : `Could not start the command: ${r.spawnError}`,
    )
  }
  // The loop judges progress from the snapshot status: a command's file changes are not tracked here.
  return {
    ok: !r.timedOut && !r.aborted && r.limitHit === null && r.exitCode === 0,
    output: commandReport(args.command, r, { timeoutMs, requested, restored }),
    changedFiles: [],
    completed,
  }
}

/** What the model reads about a command that ran: how it ended, the limits it met, its output, what was undone. */
export function commandReport(
  command: string,
  r: ShellOutcome,
  run: { timeoutMs: number; requested: number; restored: string[] },
): string {
  const { timeoutMs, requested, restored } = run
  const seconds = (r.durationMs / 1000).toFixed(1)
  const lines = [`$ ${command}`]
  if (r.timedOut) {
    lines.push(
      `Killed after ${timeoutMs} ms (timeout), with every process it started. Pass a larger timeout_ms ` +
        `(at most ${COMMAND_MAX_TIMEOUT_MS}) for long commands; never start servers or watchers that do not exit.`,
    )
  } else if (r.limitHit === 'processes') {
    lines.push(
      `Stopped after ${seconds} s: the command started more than ${r.limits?.processes} processes (its limit) ` +
        'and was stopped, with every process it started. A fork bomb or runaway parallelism? Raise ' +
        '"sandbox": { "limits": { "processes": N } } in .ralph/config.json only if the user agrees.',
    )
  } else if (r.limitHit === 'memory') {
    lines.push(
      `Stopped after ${seconds} s: the command ran out of its memory limit of ${r.limits?.memoryMb} MB ` +
        '(all its processes together) and was stopped. Use less memory (smaller inputs, fewer parallel jobs).',
    )
  } else if (r.aborted) {
    lines.push(`Stopped after ${seconds} s: the task was cancelled.`)
  } else if (r.exitCode !== null) {
    lines.push(`Exit code: ${r.exitCode} (${seconds} s)`)
  } else lines.push(`Killed by signal ${r.signal} (${seconds} s)`)
  if (
    r.limits !== null &&
    (r.exitCode === EXIT_FILE_TOO_LARGE ||
      r.signal === 'SIGXFSZ' ||
      /File size limit exceeded/.test(r.stderr))
  ) {
    lines.push(
      `A process was stopped for writing a file larger than the file-size limit of ${r.limits.fileSizeMb} MB.`,
    )
  }
  if (r.limits !== null && /No space left on device/.test(r.output)) {
    lines.push(
      `(If that was in /tmp: the command's /tmp holds at most ${r.limits.tmpMb} MB. Write large files in the project.)`,
    )
  }
  if (requested > COMMAND_MAX_TIMEOUT_MS) lines.push(`(timeout_ms was capped at ${COMMAND_MAX_TIMEOUT_MS}.)`)
  if (r.stdout === '' && r.stderr === '') lines.push('(no output)')
  if (r.stdout !== '') lines.push('--- stdout ---', r.stdout.replace(/\n$/, ''))
  if (r.stderr !== '') lines.push('--- stderr ---', r.stderr.replace(/\n$/, ''))
  if (restored.length > 0) {
    lines.push(
      `[Restored ${restored.join(', ')}: these files belong to the harness and commands may not change them.]`,
    )
  }
  return lines.join('\n')
}

export const runCommand = defineTool({
  name: 'run_command',
  description:
    'Run a shell command in the project root with a timeout and return its exit code and output (long output ' +
    'keeps its beginning and end). Use it to install, build, test and lint.',
  schema,
  readOnly: false,
  run: runCommandTool,
})
