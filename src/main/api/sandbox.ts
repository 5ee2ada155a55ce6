import type { sandboxCalls, SandboxSettings } from '../../shared/api/sandbox'
import {
  readSandboxConfig,
  sandboxInUse,
  TOOLCHAIN_HOME_DIRS,
  updateSandboxConfig,
  type SandboxConfig,
} from '../sandbox'
import type { Handlers } from './types'

async function settings(config: SandboxConfig): Promise<SandboxSettings> {
  return { kind: await sandboxInUse(), ...config, toolchainDirs: [...TOOLCHAIN_HOME_DIRS] }
}

/** A project's sandbox settings, for Settings (DESIGN.md §14). */
export const sandboxHandlers: Handlers<typeof sandboxCalls> = {
  'sandbox.get': async ({ projectId }, ctx) =>
    settings(await readSandboxConfig(ctx.resolveProject(projectId).path)),
  'sandbox.set': async ({ projectId, allowEnvFiles, network }, ctx) => {
    const project = ctx.resolveProject(projectId)
    const patch = {
      ...(allowEnvFiles === undefined ? {} : { allowEnvFiles }),
      ...(network === undefined ? {} : { network }),
    }
    const config = await updateSandboxConfig(project.path, patch)
    ctx.emit('settings.changed', { key: `sandbox:${projectId}` })
    return settings(config)
  },
}
