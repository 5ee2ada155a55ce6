import { createCore, type Core } from '../api/services'
import { resolveAppDataDir } from '../workspace/appPaths'

/** The CLI's host: same store and vault as the web host, registered as "ralph <command>" in origin.md. */
export function openCliCore(env: NodeJS.ProcessEnv, command: string): Core {
  return createCore({
    appDataDir: resolveAppDataDir({
      env,
      platform: process.platform,
      home: env.HOME ?? env.USERPROFILE ?? '',
    }),
    env,
    host: { kind: 'web', openedFrom: `the command line (ralph ${command})` },
  })
}
