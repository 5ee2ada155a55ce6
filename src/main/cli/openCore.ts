import { createServices, type CoreServices } from '../api/services'
import { cliAppDataDir } from './appData'

/** The CLI's host: the same store and vault as the web host, registered as "ralph <command>" in origin.md. */
export function openCliServices(env: NodeJS.ProcessEnv, command: string): CoreServices & { close(): void } {
  const services = createServices({
    appDataDir: cliAppDataDir(env),
    env,
    host: { kind: 'web', openedFrom: `the command line (ralph ${command})` },
  })
  return { ...services, close: () => services.db.close() }
}
