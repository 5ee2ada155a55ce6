import { AppError } from '../../../shared/errors'
import {
  allowUnsandboxed,
  readSandboxConfig,
  revokeUnsandboxed,
  sandboxSupport,
  unsandboxedAllowed,
} from '../../sandbox'
import { resolveAppDataDir } from '../../workspace/appPaths'
import { checkProjectFolder } from '../../workspace/projectFolder'
import { expectPositionals } from '../args'
import { writeJson } from '../output'
import { ExitCode, type CliCommand, type CliContext } from '../types'

const usage = `Usage: ralph sandbox [status|allow|revoke] [--project DIR] [--json]

  status   which sandbox the model's commands run in here, and this project's settings (the default)
  allow    where no sandbox is available: let this project's commands run without one
  revoke   take that permission back

Linux uses bubblewrap and macOS sandbox-exec: the project is writable; .git, .ralph/ and the rest of the system are
read-only; the app data folder and your home's credentials are hidden; nothing outlives the command; the
environment is built from an allowlist. In .ralph/config.json, "sandbox": { "network": false } cuts the network
and "passEnv": ["NAME", …] passes variables the project's commands need.`

const appDataDir = (ctx: CliContext) =>
  resolveAppDataDir({
    env: ctx.env,
    platform: process.platform,
    home: ctx.env.HOME ?? ctx.env.USERPROFILE ?? '',
  })

export const sandboxCommand: CliCommand = {
  name: 'sandbox',
  usage,
  async run(ctx) {
    const [action = 'status'] = ctx.positionals
    expectPositionals(ctx.positionals, 0, 1, 'sandbox [status|allow|revoke]', 'sandbox')
    if (!['status', 'allow', 'revoke'].includes(action)) {
      throw new AppError('invalid-input', `Unknown action "${action}". See "ralph sandbox --help".`)
    }
    const projectDir = checkProjectFolder(ctx.projectDir, { write: false })
    const support = await sandboxSupport()
    if (action === 'allow') await allowUnsandboxed(projectDir, appDataDir(ctx))
    if (action === 'revoke') await revokeUnsandboxed(projectDir, appDataDir(ctx))
    const allowed = await unsandboxedAllowed(projectDir, appDataDir(ctx))
    const config = await readSandboxConfig(projectDir)
    if (ctx.json) {
      writeJson(ctx.stdout, {
        ok: true,
        sandbox: support.kind,
        reason: support.reason,
        unsandboxedAllowed: allowed,
        network: config.network,
        passEnv: config.passEnv,
      })
      return ExitCode.ok
    }
    const lines =
      support.kind === 'none'
        ? [
            `Commands are NOT sandboxed on this machine: ${support.reason}.`,
            allowed
              ? 'This project may run them anyway (ralph sandbox revoke takes that back).'
              : 'The model cannot run commands in this project until you allow it: ralph sandbox allow',
          ]
        : [`Commands run in a sandbox: ${support.kind}.`]
    lines.push(
      `Network: ${config.network ? 'allowed' : 'cut off'}   Passed variables: ${config.passEnv.join(', ') || '(none)'}`,
    )
    ctx.stdout.write(lines.join('\n') + '\n')
    return ExitCode.ok
  },
}
