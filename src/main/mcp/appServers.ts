// The app-level MCP servers (Settings): their shape in the settings store, and every value of their `env` and
// `headers` in the vault (Electron safeStorage, or the 0600 file), never in SQLite — the store keeps only which
// names have a value and a masked hint. The vault also holds the named secrets `${NAME}` placeholders read.
import { AppError } from '../../shared/errors'
import { type Db, SecretsRepo, SettingsRepo } from '../store'
import type { SecretVault } from '../secrets'
import { ProjectApprovals } from './approval'
import { parseServerEntry, type DeclaredServer, type ServerConfig } from './config'

const SETTINGS_KEY = 'mcp.servers'
const valueName = (server: string, part: 'env' | 'header', key: string) =>
  `mcp-server:${server}:${part}:${key}`
const secretName = (name: string) => `mcp:${name}`

/** What the settings store keeps of one server: its shape, and the names (not values) of its env and headers. */
type StoredServer =
  | { command: string; args?: string[]; envKeys?: string[] }
  | { type: 'http' | 'sse'; url: string; headerKeys?: string[] }

const mask = (value: string) => (value.length <= 8 ? '…' : `…${value.slice(-4)}`)

export class AppMcpServers {
  private readonly settings: SettingsRepo
  private readonly secrets: SecretsRepo

  constructor(
    private readonly db: Db,
    private readonly vault: SecretVault,
  ) {
    this.settings = new SettingsRepo(db)
    this.secrets = new SecretsRepo(db)
  }

  private stored(): Record<string, StoredServer> {
    return this.settings.get<Record<string, StoredServer>>(SETTINGS_KEY) ?? {}
  }

  /** The servers with their env and header values read back from the vault; a value gone from it is ''. */
  list(): DeclaredServer[] {
    return Object.entries(this.stored()).map(([name, s]) => {
      const read = (part: 'env' | 'header', keys: string[] | undefined) =>
        keys && keys.length > 0
          ? Object.fromEntries(keys.map((k) => [k, this.vault.get(valueName(name, part, k)) ?? '']))
          : undefined
      const config: ServerConfig =
        'url' in s
          ? {
              type: s.type,
              url: s.url,
              ...(s.headerKeys?.length ? { headers: read('header', s.headerKeys) } : {}),
            }
          : {
              command: s.command,
              ...(s.args ? { args: s.args } : {}),
              ...(s.envKeys?.length ? { env: read('env', s.envKeys) } : {}),
            }
      return { name, origin: 'app' as const, config }
    })
  }

  /** Adds or replaces a server; its env and header values go to the vault. */
  set(name: string, raw: unknown, now = Date.now()): DeclaredServer {
    if (name.trim() === '') throw new AppError('invalid-input', 'An MCP server needs a name.')
    const entry = parseServerEntry(name, raw)
    if ('problem' in entry) throw new AppError('invalid-input', entry.problem)
    this.dropValues(name)
    const { config } = entry
    const keep = (part: 'env' | 'header', values: Record<string, string> | undefined) => {
      for (const [k, v] of Object.entries(values ?? {})) {
        this.vault.set(valueName(name, part, k), v)
        this.secrets.upsert(valueName(name, part, k), this.vault.kind, mask(v), now)
      }
      return Object.keys(values ?? {})
    }
    const stored: StoredServer =
      'url' in config
        ? { type: config.type, url: config.url, headerKeys: keep('header', config.headers) }
        : {
            command: config.command,
            ...(config.args ? { args: config.args } : {}),
            envKeys: keep('env', config.env),
          }
    this.settings.set(SETTINGS_KEY, { ...this.stored(), [name]: stored }, now)
    return { name, origin: 'app', config }
  }

  remove(name: string): boolean {
    const all = this.stored()
    if (!(name in all)) return false
    this.dropValues(name)
    const { [name]: _gone, ...rest } = all
    this.settings.set(SETTINGS_KEY, rest)
    return true
  }

  private dropValues(name: string): void {
    const s = this.stored()[name]
    if (!s) return
    const [part, keys] = 'url' in s ? (['header', s.headerKeys] as const) : (['env', s.envKeys] as const)
    for (const k of keys ?? []) {
      this.vault.delete(valueName(name, part, k))
      this.secrets.delete(valueName(name, part, k))
    }
  }

  /** The user's approvals of one project's `.mcp.json` servers (kept in the same database). */
  approvals(projectDir: string): Promise<ProjectApprovals> {
    return ProjectApprovals.of(this.db, projectDir)
  }

  /** A named secret for `${NAME}` placeholders; null when it is not stored. */
  secret(name: string): string | null {
    return this.vault.get(secretName(name))
  }

  setSecret(name: string, value: string, now = Date.now()): void {
    this.vault.set(secretName(name), value)
    this.secrets.upsert(secretName(name), this.vault.kind, mask(value), now)
  }

  /** The names of the named secrets (for `${NAME}` placeholders); values stay in the vault. */
  secretNames(): string[] {
    return this.secrets.namesUnder(secretName(''))
  }

  deleteSecret(name: string): void {
    this.vault.delete(secretName(name))
    this.secrets.delete(secretName(name))
  }
}
