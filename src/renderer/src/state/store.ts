import { create } from 'zustand'
import type { AppInfo } from '../../../shared/api/core'
import type { Project, ProjectDetail } from '../../../shared/project'
import type { ConnectionResult, LocalServer, ProviderSettings, ProviderState } from '../../../shared/settings'
import { client } from '../api'
import { createLoopSlice, type LoopSlice } from './loopSlice'
import { parseHash, routeHash, type Route } from './route'

const message = (err: unknown) => (err instanceof Error ? err.message : String(err))

interface AppSlice {
  info: AppInfo | null
  connected: boolean
  fatal: string | null
  loadInfo(): Promise<void>
  setConnected(connected: boolean): void
}

interface RouteSlice {
  route: Route
  navigate(route: Route): void
  syncRouteFromHash(): void
}

interface ProjectsSlice {
  projects: Project[]
  current: ProjectDetail | null
  currentError: string | null
  opening: boolean
  openError: string | null
  loadProjects(): Promise<void>
  openProject(path: string): Promise<ProjectDetail | null>
  loadProject(projectId: number): Promise<void>
  forgetProject(projectId: number): Promise<void>
  clearOpenError(): void
}

interface SettingsSlice {
  provider: ProviderState | null
  localServers: LocalServer[] | null
  saving: boolean
  saveError: string | null
  testing: boolean
  testResult: ConnectionResult | null
  loadProvider(): Promise<void>
  detectLocal(): Promise<void>
  saveProvider(settings: ProviderSettings, apiKey?: string | null): Promise<boolean>
  testConnection(settings: ProviderSettings, apiKey?: string): Promise<void>
  clearSettingsFeedback(): void
}

export type StudioState = AppSlice & RouteSlice & ProjectsSlice & SettingsSlice & LoopSlice

export const useStudio = create<StudioState>()((set, get, store) => ({
  ...createLoopSlice(set, get, store),

  // app
  info: null,
  connected: false,
  fatal: null,
  async loadInfo() {
    try {
      set({ info: await client.call('app.info', {}), fatal: null })
    } catch (err) {
      set({ fatal: message(err) })
    }
  },
  setConnected: (connected) => set({ connected }),

  // route
  route: parseHash(window.location.hash),
  navigate(route) {
    const hash = routeHash(route)
    if (window.location.hash !== hash) window.location.hash = hash
    set({ route })
  },
  syncRouteFromHash: () => set({ route: parseHash(window.location.hash) }),

  // projects
  projects: [],
  current: null,
  currentError: null,
  opening: false,
  openError: null,
  async loadProjects() {
    try {
      set({ projects: await client.call('projects.list', {}) })
    } catch (err) {
      set({ openError: message(err) })
    }
  },
  async openProject(path) {
    set({ opening: true, openError: null })
    try {
      const project = await client.call('projects.open', { path })
      set({ current: project, opening: false })
      get().navigate({ page: 'project', projectId: project.id })
      void get().loadProjects()
      return project
    } catch (err) {
      set({ opening: false, openError: message(err) })
      return null
    }
  },
  async loadProject(projectId) {
    set({ currentError: null })
    try {
      set({ current: await client.call('projects.get', { projectId }) })
    } catch (err) {
      set({ current: null, currentError: message(err) })
    }
  },
  async forgetProject(projectId) {
    await client.call('projects.forget', { projectId })
    if (get().current?.id === projectId) set({ current: null })
    await get().loadProjects()
  },
  clearOpenError: () => set({ openError: null }),

  // settings
  provider: null,
  localServers: null,
  saving: false,
  saveError: null,
  testing: false,
  testResult: null,
  async loadProvider() {
    try {
      set({ provider: await client.call('settings.getProvider', {}) })
    } catch (err) {
      set({ saveError: message(err) })
    }
  },
  async detectLocal() {
    try {
      set({ localServers: await client.call('settings.detectLocal', {}) })
    } catch {
      set({ localServers: [] })
    }
  },
  async saveProvider(settings, apiKey) {
    set({ saving: true, saveError: null })
    try {
      const provider = await client.call('settings.setProvider', { settings, apiKey })
      set({ provider, saving: false })
      return true
    } catch (err) {
      set({ saving: false, saveError: message(err) })
      return false
    }
  },
  async testConnection(settings, apiKey) {
    set({ testing: true, testResult: null })
    try {
      set({ testResult: await client.call('settings.testConnection', { settings, apiKey }), testing: false })
    } catch (err) {
      set({ testing: false, testResult: { ok: false, message: message(err), latencyMs: 0 } })
    }
  },
  clearSettingsFeedback: () => set({ saveError: null, testResult: null }),
}))
