import { readFileSync } from 'node:fs'
import { AppError } from '../../shared/errors'
import type { Calls } from '../../shared/api/contract'
import { ProviderSettingsService } from '../llm/providerSettings'
import { ApiKeys } from '../secrets/apiKeys'
import { FileVault } from '../secrets/fileVault'
import type { SecretVault } from '../secrets/types'
import { openDatabase, type Db } from '../store/database'
import { ProjectsRepo } from '../store/projectsRepo'
import { SettingsRepo } from '../store/settingsRepo'
import { databaseFile } from '../workspace/appPaths'
import { createCoreHandlers } from './coreHandlers'
import { planHandlers } from './plan'
import { snapshotHandlers } from './snapshots'
import { createTaskHandlers } from './tasks'
import { TaskRunner } from '../loop/taskRunner'
import { loadPriceOverrides } from '../llm/pricing'
import { RunsRepo } from '../store/runsRepo'
import { SnapshotsRepo } from '../store/snapshotsRepo'
import { createDispatcher, type Dispatch } from './dispatch'
import { EventBus } from './eventBus'
import type { ApiContext, Handlers } from './types'

/** What differs per host (DESIGN.md §2: injected in one place per host, never reached for globally). */
export interface HostAdapter {
  kind: 'electron' | 'web'
  /** For origin.md: how the project was opened. */
  openedFrom: string
  vault?: SecretVault
  pickFolder?: () => Promise<string | null>
  nativeBinding?: string
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
}

export interface Core {
  services: CoreServices
  events: EventBus
  dispatch: Dispatch
  tasks: TaskRunner
  /** Stops running tasks (their pre-task snapshots stay intact), then closes the store. */
  close(): Promise<void>
}

export function appVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string
    }
    return pkg.version
  } catch {
    return '0.0.0'
  }
}

/** Builds the core once per host: store, repositories, settings, and the dispatcher both transports use. */
export function createCore(options: CoreOptions): Core {
  const db = openDatabase(databaseFile(options.appDataDir), { nativeBinding: options.host.nativeBinding })
  const settings = new SettingsRepo(db)
  const apiKeys = new ApiKeys(db, options.host.vault ?? new FileVault(options.appDataDir), options.env)
  const services: CoreServices = {
    version: options.version ?? appVersion(),
    appDataDir: options.appDataDir,
    env: options.env,
    host: options.host,
    db,
    projects: new ProjectsRepo(db),
    settings,
    apiKeys,
    providerSettings: new ProviderSettingsService(settings, apiKeys, options.env),
  }
  const events = new EventBus()
  const ctx: ApiContext = {
    db,
    appDataDir: options.appDataDir,
    resolveProject(projectId) {
      const project = services.projects.get(projectId)
      if (!project) throw new AppError('not-found', `No project with id ${projectId}. Open the folder again.`)
      return project
    },
    emit: (name, payload) => events.emit(name, payload),
  }
  const tasks = new TaskRunner({
    runs: new RunsRepo(db),
    modelConfig: () => services.providerSettings.modelConfig(),
    prices: () => loadPriceOverrides(settings),
    snapshotIndex: (projectId) => new SnapshotsRepo(db).indexFor(projectId),
    onEvent: (projectId, event) => events.emit('loop.event', { projectId, event }),
    onDelta: (projectId, task, iteration, text) =>
      events.emit('loop.delta', { projectId, task, iteration, text }),
    onFinished: (projectId, result) =>
      events.emit('loop.finished', {
        projectId,
        task: result.task,
        status: result.status,
        message: result.message,
      }),
  })
  const handlers: Handlers<Calls> = {
    ...createCoreHandlers(services),
    ...snapshotHandlers,
    ...planHandlers,
    ...createTaskHandlers(tasks),
  }
  return {
    services,
    events,
    tasks,
    dispatch: createDispatcher(handlers, ctx),
    close: async () => {
      await tasks.stopAll()
      db.close()
    },
  }
}
