import { resolve } from 'node:path'
import { AppError } from '../../shared/errors'
import { cliLogger } from './appData'
import { parseCommandArgs, splitCommand } from './args'
import { reportError } from './output'
import { ExitCode, type CliCommand, type CliContext } from './types'

interface CommandEntry {
  name: string
  summary: string
  /** Loaded only when run: `--help` never loads SQLite, git or the AI SDK. */
  load(): Promise<CliCommand>
}

const commands: CommandEntry[] = [
  {
    name: 'init',
    summary: 'Create .ralph/ (state files and snapshot store) in the project folder',
    load: async () => (await import('./commands/init')).initCommand,
  },
  {
    name: 'run',
    summary:
      'Run one task headless: "<message>" → snapshots, iterations, gates (--resume: an interrupted one)',
    load: async () => (await import('./commands/run')).runCommand,
  },
  {
    name: 'config',
    summary: 'Show or change the LLM provider settings (get | set | unset | test)',
    load: async () => (await import('./commands/config')).configCommand,
  },
  {
    name: 'snapshot',
    summary: 'Save, list, diff and roll back snapshots of the project (shadow git, never your .git)',
    load: async () => (await import('./commands/snapshot')).snapshotCommand,
  },
  {
    name: 'brainstorm',
    summary: 'Guided brainstorm that ends in a validated VISION.md and ROADMAP.md (--quick, --yes)',
    load: async () => (await import('./commands/brainstorm')).brainstormCommand,
  },
  {
    name: 'build',
    summary: 'Work the queue: each task through the whole lifecycle, then VERIFY (accept, retry or escalate)',
    load: async () => (await import('./commands/build')).buildCommand,
  },
  {
    name: 'lanes',
    summary: "The lanes of parallel builds: each lane's task, state and disk use; clean removes leftovers",
    load: async () => (await import('./commands/lanes')).lanesCommand,
  },
  {
    name: 'worker',
    summary:
      'Run one job of a build with lanes here or in a container; its result is a bundle and a transcript',
    load: async () => (await import('./commands/worker')).workerCommand,
  },
  {
    name: 'workers',
    summary:
      'Check the backend that runs lanes elsewhere (a Docker engine: DOCKER_HOST); clean what jobs left',
    load: async () => (await import('./commands/workers')).workersCommand,
  },
  {
    name: 'query',
    summary: 'The work queue (.ralph/plan.jsonl) as JSON: all, tasks, issues, stage or next',
    load: async () => (await import('./commands/queue')).queryCommand,
  },
  {
    name: 'task',
    summary: 'Add, finish, accept, reject, edit or cancel a task of the work queue',
    load: async () => (await import('./commands/queue')).taskCommand,
  },
  {
    name: 'issue',
    summary: 'Record or close an issue of the work queue',
    load: async () => (await import('./commands/queue')).issueCommand,
  },
  {
    name: 'set-spec',
    summary: 'Set the spec the work queue is working on',
    load: async () => (await import('./commands/queue')).setSpecCommand,
  },
  {
    name: 'log',
    summary: "The work queue's history as JSON (--all: every task ever)",
    load: async () => (await import('./commands/queue')).logCommand,
  },
  {
    name: 'sandbox',
    summary: "Which sandbox the model's commands run in; allow commands where there is none",
    load: async () => (await import('./commands/sandbox')).sandboxCommand,
  },
  {
    name: 'rules',
    summary: "The project's rules files (AGENTS.md, CLAUDE.md …) the model reads; turn one on or off",
    load: async () => (await import('./commands/rules')).rulesCommand,
  },
  {
    name: 'mcp',
    summary: 'MCP servers (.mcp.json and app-level): where each runs, their tools; test, switch on or off',
    load: async () => (await import('./commands/mcp')).mcpCommand,
  },
  {
    name: 'engines',
    summary: "The agent CLIs (Claude Code, Codex) on this machine; choose the project's engine (use ENGINE)",
    load: async () => (await import('./commands/engines')).enginesCommand,
  },
  {
    name: 'plan',
    summary: 'Validate, show or diff the plan (.ralph/plan.tsx)',
    load: async () => (await import('./commands/plan')).planCommand,
  },
]

function help(): string {
  const width = Math.max(...commands.map((c) => c.name.length))
  return `Ralph Studio command line

Usage: ralph <command> [arguments] [--project DIR] [--json]

Commands:
${commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Global options:
  --project DIR   the project folder (default: the current folder)
  --json          machine-readable output: one JSON object (NDJSON events for long commands)
  -h, --help      help for ralph or for one command (ralph <command> --help)
  -v, --version   the version

Exit codes: 0 ok, 2 usage error, 3 needs clarification, 4 task failed (or could not start: another loop holds
the project), 5 provider or configuration error, 130 interrupted.
Data lives in $RALPH_HOME (default ~/.config/ralph-studio on Linux).`
}

export interface MainIo {
  stdout: NodeJS.WritableStream & CliContext['stdout']
  stderr: NodeJS.WritableStream & CliContext['stderr']
  env: NodeJS.ProcessEnv
  cwd: string
  signal: AbortSignal
}

export async function main(argv: string[], io: MainIo): Promise<number> {
  const { command: name, rest } = splitCommand(argv)
  const json = rest.includes('--json')
  const asksHelp = rest.includes('--help') || rest.includes('-h')
  if (name === null || name === 'help') {
    if (argv.includes('--version') || argv.includes('-v')) {
      const { appVersion } = await import('../workspace/appVersion')
      io.stdout.write(`${appVersion()}\n`)
      return ExitCode.ok
    }
    const ok = name === 'help' || asksHelp
    ;(ok ? io.stdout : io.stderr).write(help() + '\n')
    return ok ? ExitCode.ok : ExitCode.usage
  }
  const entry = commands.find((c) => c.name === name)
  if (!entry) {
    io.stderr.write(`ralph: unknown command "${name}". Run ralph --help for the list.\n`)
    return ExitCode.usage
  }
  try {
    const command = await entry.load()
    if (asksHelp) {
      io.stdout.write(command.usage + '\n')
      return ExitCode.ok
    }
    const { values, positionals } = parseCommandArgs(name, rest, command.options)
    const project = values.project
    if (project === '') throw new AppError('invalid-input', '--project needs a folder: --project DIR')
    return await command.run({
      projectDir: resolve(io.cwd, typeof project === 'string' ? project : '.'),
      json: values.json === true,
      positionals,
      values,
      env: io.env,
      stdout: io.stdout,
      stderr: io.stderr,
      signal: io.signal,
      logger: cliLogger(io.env),
    })
  } catch (err) {
    return reportError(err, json, io.stdout, io.stderr)
  }
}
