import { isAbsolute } from 'node:path'
import type { coreCalls } from '../../shared/api/core'
import { AppError } from '../../shared/errors'
import type { ProjectDetail, Project } from '../../shared/project'
import { listModels } from '../llm/listModels'
import { detectLocalServers, localCandidates } from '../llm/localServers'
import { testConnection } from '../llm/testConnection'
import { recoverInterruptedTask } from '../loop/crashRecovery'
import { sandboxSupport } from '../sandbox'
import { ActivityRepo } from '../store/activityRepo'
import { RunsRepo } from '../store/runsRepo'
import { RepoTrustBook } from '../userGit'
import { openProject } from '../workspace/openProject'
import { readProjectState } from '../workspace/projectState'
import { isMissing, noteFailure } from '../workspace/failures'
import type { Logger } from '../workspace/logFile'
import type { CoreServices } from './services'
import { startProjectBaseline } from './snapshots'
import type { Handlers } from './types'

/**
 * A project as the app shows it; a task left `running` by a process that died is reported as interrupted. Its last
 * task is read from the run rows after that recovery, so the header and the cards read the same row.
 */
async function detail(
  project: Project,
  runs: RunsRepo,
  activity: ActivityRepo,
  logger: Logger,
): Promise<ProjectDetail> {
  await recoverInterruptedTask(project.path, runs, undefined, logger).catch((err: unknown) => {
    // A folder that is gone has no task to recover (its detail says it is missing); other failures are noted.
    if (!isMissing(err))
      noteFailure(logger, `the interrupted task of ${project.path} could not be recovered`, err)
    return false
  })
  const last = activity.lastRun(project.path)
  return {
    ...project,
    state: {
      ...(await readProjectState(project.path)),
      lastTask: last ? { task: last.task, title: last.title, status: last.status } : null,
    },
  }
}

/** The calls every host serves. Host-specific ones (the native folder picker) come from the host. */
export function createCoreHandlers(services: CoreServices): Handlers<typeof coreCalls> {
  const { projects, providerSettings, apiKeys, host, env } = services
  const runs = new RunsRepo(services.db)
  const activity = new ActivityRepo(services.db)
  const trust = new RepoTrustBook(services.db)
  return {
    'app.info': async () => ({
      version: services.version,
      host: host.kind,
      nativeFolderPicker: !!host.pickFolder,
      nativeFilePicker: !!host.pickFile,
      appDataDir: services.appDataDir,
      platform: process.platform,
      sandbox: await sandboxSupport().then(({ kind, reason }) => ({ kind, reason })),
    }),
    'projects.list': async () => projects.listRecent(),
    'projects.open': async ({ path, confirmHomeLike }, ctx) => {
      // The host's own working folder means nothing to the person typing: only a full path is taken.
      if (path.trim() !== '' && !isAbsolute(path.trim()))
        throw new AppError(
          'invalid-input',
          `"${path.trim()}" is not a full path. Give the folder's absolute path, e.g. /home/you/my-app.`,
        )
      const { project } = await openProject(projects, path, host.openedFrom, { confirmHomeLike })
      ctx.emit('projects.changed', { projectId: project.id })
      const opened = await detail(project, runs, activity, services.logger)
      // A project without snapshots gets its baseline now, in the background (DESIGN.md §5).
      startProjectBaseline(ctx, project.id)
      // What Ralph saw of the folder's git at open (DESIGN.md §14): a repository there now predates any task.
      trust
        .current(project.path)
        .catch((err: unknown) =>
          services.logger.warn(`Could not record the git trust of ${project.path} at open`, err),
        )
      return opened
    },
    'projects.get': async ({ projectId }, ctx) =>
      detail(ctx.resolveProject(projectId), runs, activity, services.logger),
    'projects.forget': async ({ projectId }, ctx) => {
      ctx.resolveProject(projectId)
      projects.remove(projectId)
      ctx.emit('projects.changed', { projectId })
      return { ok: true as const }
    },
    'dialog.pickFolder': async () => {
      if (!host.pickFolder)
        throw new AppError('invalid-input', 'This host has no folder picker; type the path instead.')
      return { path: await host.pickFolder() }
    },
    'dialog.pickFile': async ({ title }) => {
      if (!host.pickFile)
        throw new AppError('invalid-input', 'This host has no file picker; type the path instead.')
      return { path: await host.pickFile(title) }
    },
    'settings.getProvider': async () => providerSettings.state(),
    'settings.setProvider': async ({ settings, apiKey }, ctx) => {
      const state = providerSettings.save(settings, apiKey)
      ctx.emit('settings.changed', { key: 'llm' })
      return state
    },
    'settings.testConnection': async ({ settings, apiKey }) =>
      testConnection({
        provider: settings.provider,
        model: settings.model,
        baseUrl: settings.baseUrl ?? null,
        apiKey: apiKey || apiKeys.resolve(settings.provider),
        localContextMax: providerSettings.localContextMax(settings.localContextMax),
      }),
    'settings.detectLocal': async () => detectLocalServers(localCandidates(env), services.logger),
    'settings.listModels': async ({ provider, baseUrl, apiKey }) => ({
      models: await listModels({
        provider,
        baseUrl: baseUrl ?? null,
        apiKey: apiKey || apiKeys.resolve(provider),
      }),
    }),
  }
}
