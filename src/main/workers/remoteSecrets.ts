// Vault secrets for remote workers (issue #39, DESIGN.md §14): only the ones the user ticked (`workers.remoteSecrets`)
// leave this machine, and only as a job's environment (Docker) or its Secret (Kubernetes), each as
// RALPH_SECRET_<NAME>; the job's text is checked not to hold them (refuseSecretsIn). Unticked ones are never read.
import { AppError } from '../../shared/errors'

/** What the vault answers for a named secret (AppMcpServers.secret): null when it holds none. */
export interface NamedSecrets {
  secret(name: string): string | null
}

/** The environment variable a ticked secret travels as. */
export const remoteSecretVar = (name: string): string =>
  `RALPH_SECRET_${name.toUpperCase().replace(/[^A-Z0-9_]/g, '_')}`

/** The ticked secrets' values by their variable; a ticked name the vault does not hold is an error naming it. */
export function tickedSecrets(vault: NamedSecrets | null, ticked: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {}
  for (const name of ticked) {
    const value = vault?.secret(name) ?? null
    if (value === null || value === '')
      throw new AppError(
        'config',
        `The vault secret "${name}" is ticked for remote workers ("workers.remoteSecrets"), but the vault holds no ` +
          'value for it: store it in Settings → MCP servers, or untick it.',
      )
    env[remoteSecretVar(name)] = value
  }
  return env
}
