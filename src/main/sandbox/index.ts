// The sandbox every process started for the model runs in (DESIGN.md §14): bubblewrap on Linux, sandbox-exec
// on macOS, and elsewhere nothing, so commands run only where the user allowed it for the project.
export { sandboxInUse, sandboxSupport, type SandboxKind, type SandboxSupport } from './detect'
export {
  prepareSandbox,
  notSandboxedMessage,
  type Launch,
  type PreparedSandbox,
  type SandboxRequest,
} from './prepare'
export { allowUnsandboxed, revokeUnsandboxed, unsandboxedAllowed, permissionsFile } from './permissions'
export {
  sandboxConfigSchema,
  defaultSandboxConfig,
  defaultSandboxLimits,
  readSandboxConfig,
  updateSandboxConfig,
  homeAllowProblem,
  type SandboxConfig,
  type SandboxLimits,
} from './config'
export { TOOLCHAIN_HOME_DIRS } from './homeAccess'
export type { RalphStage } from './policy'
export { HOME_SECRETS } from './hidden'
export { type CommandCgroup, createPidsCgroup } from './cgroup'
