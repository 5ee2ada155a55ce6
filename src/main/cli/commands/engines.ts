// `ralph engines`: the agent CLIs this machine has (DESIGN.md §9) — each one's version, or how to install or update
// it — and `ralph engines use ENGINE [--model M]`, the project's engine in .ralph/config.json.
import {
  detectEngines,
  ENGINE_CLIS,
  ENGINE_IDS,
  parseEngineId,
  readProjectEngine,
  setProjectEngine,
  type EngineId,
  type EngineInstall,
  type ProjectEngine,
} from '../../engines'
import { checkProjectFolder } from '../../workspace/projectFolder'
import { expectAction, expectPositionals, stringFlag, usageError } from '../args'
import { writeJson } from '../output'
import { ExitCode, type CliCommand, type CliContext } from '../types'

const usage = `Usage: ralph engines [list] [--project DIR] [--json]
       ralph engines use ENGINE [--model M] [--project DIR] [--json]

  list             the agent CLIs found on PATH: each one's version, or how to install or update it; and the
                   project's engine (the default)
  use ENGINE       the engine of the project's tasks and builds: ${ENGINE_IDS.join(', ')}
    --model M      the model the engine is asked for (left out: the engine's own default)

built-in is Ralph's own loop with the provider of \`ralph config\`. claude-code and codex run your own installed and
logged-in CLI for each iteration, inside the sandbox, with Ralph's snapshots, plan gates and verification around it;
Ralph never installs them or logs in for you. \`ralph run|build --engine E\` picks one for a single run.`

const options = { model: { type: 'string' } } as const

const engineLabel = (id: EngineId): string => (id === 'built-in' ? 'Built-in' : ENGINE_CLIS[id].label)

function describe(setting: ProjectEngine): string {
  const model = setting.engine === 'built-in' ? '' : ` (model: ${setting.engineModel ?? 'its default'})`
  return `${engineLabel(setting.engine)}${model}`
}

function installLine(e: EngineInstall): string {
  const state = !e.installed
    ? 'not installed'
    : e.version === null
      ? 'does not start'
      : e.supported
        ? e.version
        : `${e.version} (too old)`
  const tail = e.supported ? (e.path ?? '') : (e.hint ?? '')
  return `${e.supported ? '✔' : '✘'} ${e.label}  ${state}  ${tail}`.trimEnd()
}

async function list(ctx: CliContext): Promise<number> {
  const dir = checkProjectFolder(ctx.projectDir, { write: false })
  const [installs, setting] = await Promise.all([detectEngines(ctx.env), readProjectEngine(dir)])
  if (ctx.json) {
    writeJson(ctx.stdout, { ok: true, engines: installs, project: { dir, ...setting } })
    return ExitCode.ok
  }
  const lines = installs.map(installLine)
  lines.push(`This project's engine: ${describe(setting)}`)
  ctx.stdout.write(lines.join('\n') + '\n')
  return ExitCode.ok
}

async function use(ctx: CliContext, value: string): Promise<number> {
  const engine = parseEngineId(value)
  const dir = checkProjectFolder(ctx.projectDir, { write: true })
  const model = stringFlag(ctx.values, 'model')
  if (engine === 'built-in' && model !== undefined) {
    throw usageError(
      'engines',
      'Built-in uses the model of `ralph config`; --model is for claude-code or codex.',
    )
  }
  const setting = await setProjectEngine(dir, engine, model ?? null)
  const install =
    engine === 'built-in' ? null : ((await detectEngines(ctx.env)).find((e) => e.id === engine) ?? null)
  const warning = install && !install.supported ? install.hint : null
  if (ctx.json) {
    writeJson(ctx.stdout, { ok: true, ...setting, ready: warning === null, hint: warning })
    return ExitCode.ok
  }
  ctx.stdout.write(`This project's engine is now ${describe(setting)}.\n`)
  // Kept anyway (it may be installed later); its tasks fail with this same hint until it is.
  if (warning) ctx.stderr.write(`Note: ${warning}\n`)
  return ExitCode.ok
}

export const enginesCommand: CliCommand = {
  name: 'engines',
  usage,
  options,
  async run(ctx) {
    const [action = 'list', engine] = ctx.positionals
    expectAction(action, ['list', 'use'], 'engines')
    if (action === 'list') {
      expectPositionals(ctx.positionals, 0, 1, 'engines [list]', 'engines')
      if (stringFlag(ctx.values, 'model') !== undefined)
        throw usageError('engines', '--model goes with use: ralph engines use ENGINE --model M.')
      return list(ctx)
    }
    expectPositionals(ctx.positionals, 2, 2, 'engines use ENGINE [--model M]', 'engines')
    return use(ctx, engine!)
  },
}
