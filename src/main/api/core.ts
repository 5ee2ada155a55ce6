import { AppMcpServers } from '../mcp'
import { FileVault } from '../secrets/fileVault'
import { AppError } from '../../shared/errors'
import type { Calls } from '../../shared/api/contract'
import { loadContextWindowOverrides } from '../llm/contextWindows'
import { loadPriceOverrides } from '../llm/pricing'
import { shutdownReason } from '../loop/shutdown'
import { TaskRunner } from '../loop/taskRunner'
import { ActivityRepo } from '../store/activityRepo'
import { RunsRepo } from '../store/runsRepo'
import { SnapshotsRepo } from '../store/snapshotsRepo'
import { createBrainstormHandlers } from './brainstorm'
import { createChatHandlers } from './chat'
import { createCoreHandlers } from './coreHandlers'
import { createDispatcher, type Dispatch } from './dispatch'
import { EngineLookup, engineHandlers } from './engines'
import { EventBus } from './eventBus'
import { planHandlers } from './plan'
import { pricesHandlers } from './prices'
import { createQueueHandlers, QueueBuilds } from './queue'
import { createServices, type CoreOptions, type CoreServices } from './services'
import { mcpHandlers } from './mcp'
import { rulesHandlers } from './rules'
import { sandboxHandlers } from './sandbox'
import { snapshotHandlers, stopProjectBaselines } from './snapshots'
import { userGitHandlers } from './userGit'
import { workersHandlers } from './workers'
import { createTaskHandlers } from './tasks'
import type { ApiContext, Handlers } from './types'

export type { CoreOptions, CoreServices, HostAdapter } from './services'

export interface Core {
  services: CoreServices
  events: EventBus
  dispatch: Dispatch
  tasks: TaskRunner
  /**
   * Stops running tasks and builds as a shutdown (`why`: what closed Ralph, for the card): they end interrupted,
   * resumable, their pre-task snapshots intact. Then closes the store.
   */
  close(why?: string): Promise<void>
}

/** Builds the core once per host: store, repositories, settings, and the dispatcher both transports use. */
export function createCore(options: CoreOptions): Core {
  const services = createServices(options)
  const { db, settings } = services
  const events = new EventBus(services.logger)
  const ctx: ApiContext = {
    db,
    appDataDir: options.appDataDir,
    resolveProject(projectId) {
      const project = services.projects.get(projectId)
      if (!project) throw new AppError('not-found', `No project with id ${projectId}. Open the folder again.`)
      return project
    },
    emit: (name, payload) => events.emit(name, payload),
    logger: services.logger,
  }
  // The app-level MCP servers, their values in the host's vault (DESIGN.md §9).
  const mcpServers = () => new AppMcpServers(db, options.host.vault ?? new FileVault(options.appDataDir))
  const tasks = new TaskRunner({
    runs: new RunsRepo(db),
    logger: services.logger,
    modelConfig: () => services.providerSettings.modelConfig(),
    fastModelConfig: (main) => services.providerSettings.fastModelConfig(main),
    prices: () => loadPriceOverrides(settings),
    contextWindows: () => loadContextWindowOverrides(settings),
    snapshotIndex: (projectId) => new SnapshotsRepo(db).indexFor(projectId),
    onEvent: (projectId, event) => events.emit('loop.event', { projectId, event }),
    onDelta: (projectId, task, iteration, text) =>
      events.emit('loop.delta', { projectId, task, iteration, text }),
    mcpServers,
    onFinished: (projectId, result) =>
      events.emit('loop.finished', {
        projectId,
        task: result.task,
        status: result.status,
        message: result.message,
      }),
  })
  const builds = new QueueBuilds({
    runner: tasks,
    modelConfig: () => services.providerSettings.modelConfig(),
    fastModelConfig: (main) => services.providerSettings.fastModelConfig(main),
    prices: () => loadPriceOverrides(settings),
    contextWindows: () => loadContextWindowOverrides(settings),
    snapshotIndex: (projectId) => new SnapshotsRepo(db).indexFor(projectId),
    logger: services.logger,
    mcpServers,
  })
  const handlers: Handlers<Calls> = {
    ...createCoreHandlers(services),
    ...snapshotHandlers,
    ...userGitHandlers,
    ...sandboxHandlers,
    ...rulesHandlers,
    ...mcpHandlers(mcpServers, db),
    ...engineHandlers(new EngineLookup(() => options.env)),
    ...planHandlers,
    ...pricesHandlers({
      settings,
      appDataDir: options.appDataDir,
      env: options.env,
      logger: services.logger,
      modelConfig: () => services.providerSettings.modelConfig(),
    }),
    ...createQueueHandlers(builds),
    ...workersHandlers({
      secretNames: () => mcpServers().secretNames(),
      env: options.env,
      logger: services.logger,
    }),
    ...createTaskHandlers({
      runner: tasks,
      activity: new ActivityRepo(db),
      runs: new RunsRepo(db),
      projects: () => services.projects.listRecent(),
    }),
    ...createChatHandlers({
      db,
      runner: tasks,
      events,
      modelConfig: () => services.providerSettings.modelConfig(),
      projectPath: (projectId) => services.projects.get(projectId)?.path ?? null,
      building: (projectId) => builds.isRunning(projectId),
      mcpServers,
      logger: services.logger,
    }),
    ...createBrainstormHandlers({
      db,
      events,
      modelConfig: () => services.providerSettings.modelConfig(),
      prices: () => loadPriceOverrides(settings),
      logger: services.logger,
    }),
  }
  return {
    services,
    events,
    tasks,
    dispatch: createDispatcher(handlers, ctx, services.logger),
    close: async (why = 'Ralph closed') => {
      // Closing is a shutdown: a running task ends interrupted (resumable), not stopped by the user.
      const reason = shutdownReason(why)
      await Promise.all([tasks.stopAll(reason), builds.stopAll(reason), stopProjectBaselines(ctx)])
      db.close()
    },
  }
}
