import { type Db, SecretsRepo } from '../store'
import type { ProviderId, ApiKeyStatus } from '../../shared/settings'
import type { SecretVault } from './types'

const secretName = (provider: ProviderId) => `apiKey:${provider}`

/** RALPH_API_KEY wins for every provider; the vendor variables only for their own vendor. */
function envVarsFor(provider: ProviderId): string[] {
  if (provider === 'openai') return ['RALPH_API_KEY', 'OPENAI_API_KEY']
  if (provider === 'anthropic') return ['RALPH_API_KEY', 'ANTHROPIC_API_KEY']
  if (provider === 'openrouter') return ['RALPH_API_KEY', 'OPENROUTER_API_KEY']
  return ['RALPH_API_KEY']
}

export function maskKey(key: string): string {
  return key.length <= 8 ? '…' : `…${key.slice(-4)}`
}

/**
 * API keys: the value lives in the vault (or the environment); SQLite holds only where it is and a masked hint,
 * so the database and the logs never contain a key.
 */
export class ApiKeys {
  private readonly secrets: SecretsRepo

  constructor(
    db: Db,
    private readonly vault: SecretVault,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.secrets = new SecretsRepo(db)
  }

  resolve(provider: ProviderId): string | null {
    for (const name of envVarsFor(provider)) {
      const value = this.env[name]
      if (value) return value
    }
    return this.vault.get(secretName(provider))
  }

  /** The key in the vault only, ignoring the environment (used to undo a failed save). */
  resolveStored(provider: ProviderId): string | null {
    return this.vault.get(secretName(provider))
  }

  status(provider: ProviderId): ApiKeyStatus {
    for (const name of envVarsFor(provider)) {
      const value = this.env[name]
      if (value) return { present: true, backend: 'env', hint: maskKey(value), envVar: name }
    }
    const row = this.secrets.get(secretName(provider))
    if (!row || this.vault.get(secretName(provider)) === null) {
      return { present: false, backend: 'none', hint: null, envVar: null }
    }
    return { present: true, backend: this.vault.kind, hint: row.hint, envVar: null }
  }

  /** The masked hint of the key stored for `provider` (whatever the environment says), or null when none is. */
  storedHint(provider: ProviderId): string | null {
    const row = this.secrets.get(secretName(provider))
    return row && this.vault.get(secretName(provider)) !== null ? row.hint : null
  }

  set(provider: ProviderId, key: string, now = Date.now()): void {
    this.vault.set(secretName(provider), key)
    this.secrets.upsert(secretName(provider), this.vault.kind, maskKey(key), now)
  }

  delete(provider: ProviderId): void {
    this.vault.delete(secretName(provider))
    this.secrets.delete(secretName(provider))
  }
}
