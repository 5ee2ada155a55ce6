import { resolveAppDataDir } from '../workspace/appPaths'
import { createFileLogger, type Logger } from '../workspace/logFile'

/** The app data folder the CLI shares with the app: $RALPH_HOME, else the platform's default. */
export function cliAppDataDir(env: NodeJS.ProcessEnv): string {
  return resolveAppDataDir({ env, platform: process.platform, home: env.HOME ?? env.USERPROFILE ?? '' })
}

/** The app data folder's rotating log, opened on its first entry: most commands never write one. */
export function cliLogger(env: NodeJS.ProcessEnv): Logger {
  let file: Logger | undefined
  const log = (): Logger => (file ??= createFileLogger(cliAppDataDir(env)))
  return {
    warn: (message, err) => log().warn(message, err),
    error: (message, err) => log().error(message, err),
  }
}
