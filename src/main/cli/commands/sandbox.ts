import { AppError } from '../../../shared/errors'
import {
  allowUnsandboxed,
  readSandboxConfig,
  revokeUnsandboxed,
  sandboxSupport,
  TOOLCHAIN_HOME_DIRS,
  unsandboxedAllowed,
  updateSandboxConfig,
} from '../../sandbox'
import { resolveAppDataDir } from '../../workspace/appPaths'
import { checkProjectFolder } from '../../workspace/projectFolder'
import { expectAction, expectPositionals, usageError } from '../args'
import { writeJson } from '../output'
import { ExitCode, type CliCommand, type CliContext } from '../types'

const usage = `Usage: ralph sandbox [status|allow|revoke] [--project DIR] [--json]
       ralph sandbox env-files [allow|deny] [--project DIR] [--json]

  status           which sandbox the model's commands run in here, and this project's settings (the default)
  allow            where no sandbox is available: let this project's commands run without one
  revoke           take that permission back
  env-files allow  let this project's commands read its .env files (the file tools never show them)
  env-files deny   hide them from commands again (the default)

Linux uses bubblewrap and macOS sandbox-exec: the project is writable; .git, .ralph/ and the rest of the system are
read-only; .ralph/snapshots.git, credential stores (.ssh, .aws …) and .env files in the project are hidden; your
home is hidden but for toolchain folders (.nvm, .cargo/bin, .pyenv …, read-only); the app data folder is hidden;
nothing outlives the command; the environment is built from an allowlist; processes, memory, file size and /tmp
are limited. In .ralph/config.json "sandbox": { "network": false } cuts the network, "passEnv": ["NAME", …]
passes variables, "homeAllow": [".asdf", …] shows more home folders, "allowEnvFiles": true shows .env files, and
"limits": { "memoryMb": 4096, "processes": 512, "fileSizeMb": 2048, "tmpMb": 512 } changes the limits.`

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
    const [action = 'status', choice] = ctx.positionals
    expectPositionals(ctx.positionals, 0, 2, 'sandbox [status|allow|revoke|env-files allow|deny]', 'sandbox')
    expectAction(action, ['status', 'allow', 'revoke', 'env-files'], 'sandbox')
    if (action !== 'env-files' && choice !== undefined) {
      throw usageError('sandbox', `Unexpected argument "${choice}".`)
    }
    if (action === 'env-files' && choice !== undefined && !['allow', 'deny'].includes(choice)) {
      throw new AppError(
        'invalid-input',
        `"${choice}" is not allow or deny: ralph sandbox env-files allow|deny`,
      )
    }
    const projectDir = checkProjectFolder(ctx.projectDir, { write: false })
    const support = await sandboxSupport()
    if (action === 'allow') await allowUnsandboxed(projectDir, appDataDir(ctx))
    if (action === 'revoke') await revokeUnsandboxed(projectDir, appDataDir(ctx))
    if (action === 'env-files' && choice !== undefined) {
      await updateSandboxConfig(projectDir, { allowEnvFiles: choice === 'allow' })
    }
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
        allowEnvFiles: config.allowEnvFiles,
        homeAllow: config.homeAllow,
        toolchainDirs: TOOLCHAIN_HOME_DIRS,
        limits: config.limits,
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
    const l = config.limits
    lines.push(
      `Network: ${config.network ? 'allowed' : 'cut off'}   Passed variables: ${config.passEnv.join(', ') || '(none)'}`,
      `.env files: ${config.allowEnvFiles ? 'commands may read them' : 'hidden from commands'} (the file tools never read them)`,
      `Home folders shown (read-only): ${[...TOOLCHAIN_HOME_DIRS, ...config.homeAllow].join(', ')}`,
      `Limits: ${l.memoryMb} MB memory, ${l.processes} processes, ${l.fileSizeMb} MB per file, ${l.tmpMb} MB /tmp`,
    )
    ctx.stdout.write(lines.join('\n') + '\n')
    return ExitCode.ok
  },
}
