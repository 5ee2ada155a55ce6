import { homedir } from 'node:os'
import { join } from 'node:path'

export interface AppPathsEnv {
  env: NodeJS.ProcessEnv
  platform: NodeJS.Platform
  home: string
}

/** The one app data folder shared by the desktop app, the web host and the CLI (DESIGN.md §4). */
export function resolveAppDataDir({ env, platform, home }: AppPathsEnv = defaultPathsEnv()): string {
  if (env.RALPH_HOME) return env.RALPH_HOME
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'ralph-studio')
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'ralph-studio')
  return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'ralph-studio')
}

export function defaultPathsEnv(): AppPathsEnv {
  return { env: process.env, platform: process.platform, home: homedir() }
}

export function databaseFile(appDataDir: string): string {
  return join(appDataDir, 'ralph.db')
}
