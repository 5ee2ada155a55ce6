import { ProviderSettingsService } from '../llm/providerSettings'
import { ApiKeys } from '../secrets/apiKeys'
import { FileVault } from '../secrets/fileVault'
import type { SecretVault } from '../secrets/types'
import { openDatabase, type Db } from '../store/database'
import { ProjectsRepo } from '../store/projectsRepo'
import { SettingsRepo } from '../store/settingsRepo'
import { databaseFile } from '../workspace/appPaths'
import { appVersion } from '../workspace/appVersion'
import { createFileLogger, type Logger } from '../workspace/logFile'

/** What differs per host (DESIGN.md §2: injected in one place per host, never reached for globally). */
export interface HostAdapter {
  kind: 'electron' | 'web'
  /** For origin.md: how the project was opened. */
  openedFrom: string
  vault?: SecretVault
  pickFolder?: () => Promise<string | null>
  /** A native file picker titled `title` (Locate… an engine's program); null when cancelled. */
  pickFile?: (title: string) => Promise<string | null>
  nativeBinding?: string
  /** Where failures that no caller sees are written; default: the app data folder's rotating logs/ralph.log. */
  logger?: Logger
}

export interface CoreOptions {
  appDataDir: string
  /** The app version; defaults to package.json's when running from source. */
  version?: string
  env: NodeJS.ProcessEnv
  host: HostAdapter
}

export interface CoreServices {
  version: string
  appDataDir: string
  env: NodeJS.ProcessEnv
  host: HostAdapter
  db: Db
  projects: ProjectsRepo
  settings: SettingsRepo
  apiKeys: ApiKeys
  providerSettings: ProviderSettingsService
  logger: Logger
}

/** The store and the settings around it: all the CLI's quick commands need, without the heavy API handlers. */
export function createServices(options: CoreOptions): CoreServices {
  const db = openDatabase(databaseFile(options.appDataDir), { nativeBinding: options.host.nativeBinding })
  const settings = new SettingsRepo(db)
  const apiKeys = new ApiKeys(db, options.host.vault ?? new FileVault(options.appDataDir), options.env)
  return {
    version: options.version ?? appVersion(),
    appDataDir: options.appDataDir,
    env: options.env,
    host: options.host,
    db,
    projects: new ProjectsRepo(db),
    settings,
    apiKeys,
    providerSettings: new ProviderSettingsService(settings, apiKeys, options.env),
    logger: options.host.logger ?? createFileLogger(options.appDataDir),
  }
}
