// The public face of this module: other modules import it from here, never from its files.
export { ApiKeys } from './apiKeys'
export {
  BLOCKED_PATHS,
  blockedPathKind,
  blockedPathRule,
  blockedPathRules,
  type BlockedKind,
} from './blockedPaths'
export { scanAddedLines, type SecretFinding } from './scan'
export type { SecretVault } from './types'
