import { resolve } from 'node:path'
import { reportError } from './output'
import { ExitCode, type CliCommand, type CliContext } from './types'

interface CommandEntry {
  name: string
  summary: string
  /** Loaded only when run: the plan parser (TypeScript) and the AI SDK are too heavy to load for `--help`. */
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
    summary: 'Run one task headless: "<message>" → snapshots, iterations, gates',
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

Exit codes: 0 ok, 2 usage error, 3 needs clarification, 4 task failed, 5 provider or configuration error,
130 interrupted. Data lives in $RALPH_HOME (default ~/.config/ralph-studio on Linux).`
}

interface Globals {
  projectDir: string
  json: boolean
  help: boolean
  rest: string[]
}

/** Pulls the global flags out wherever they appear, leaving the command's own arguments in order. */
function parseGlobals(argv: string[], cwd: string): Globals | string {
  const rest: string[] = []
  let projectDir = cwd
  let json = false
  let help = false
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--json') json = true
    else if (arg === '--help' || arg === '-h') help = true
    else if (arg === '--project') {
      const value = argv[++i]
      if (value === undefined || value === '') return '--project needs a folder: --project DIR'
      projectDir = resolve(cwd, value)
    } else if (arg.startsWith('--project=')) projectDir = resolve(cwd, arg.slice('--project='.length))
    else rest.push(arg)
  }
  return { projectDir, json, help, rest }
}

export interface MainIo {
  stdout: NodeJS.WritableStream & CliContext['stdout']
  stderr: NodeJS.WritableStream & CliContext['stderr']
  env: NodeJS.ProcessEnv
  cwd: string
  signal: AbortSignal
}

export async function main(argv: string[], io: MainIo): Promise<number> {
  const globals = parseGlobals(argv, io.cwd)
  if (typeof globals === 'string') {
    io.stderr.write(`ralph: ${globals}\n`)
    return ExitCode.usage
  }
  const [name, ...args] = globals.rest
  if (!name || name === 'help') {
    ;(name || globals.help ? io.stdout : io.stderr).write(help() + '\n')
    return name || globals.help ? ExitCode.ok : ExitCode.usage
  }
  if (name === '--version' || name === '-v') {
    const { appVersion } = await import('../api/services')
    io.stdout.write(`${appVersion()}\n`)
    return ExitCode.ok
  }
  const entry = commands.find((c) => c.name === name)
  if (!entry) {
    io.stderr.write(`ralph: unknown command "${name}". Run ralph --help for the list.\n`)
    return ExitCode.usage
  }
  let command: CliCommand
  try {
    command = await entry.load()
  } catch (err) {
    return reportError(err, globals.json, io.stdout, io.stderr)
  }
  if (globals.help) {
    io.stdout.write(command.usage + '\n')
    return ExitCode.ok
  }
  const ctx: CliContext = {
    projectDir: globals.projectDir,
    json: globals.json,
    args,
    env: io.env,
    stdout: io.stdout,
    stderr: io.stderr,
    signal: io.signal,
  }
  try {
    return await command.run(ctx)
  } catch (err) {
    return reportError(err, globals.json, io.stdout, io.stderr)
  }
}
