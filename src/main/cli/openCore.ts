import { createServices, type CoreServices } from '../api/services'
import { cliAppDataDir } from './appData'
import { applyStoredPrices } from '../llm/catalogUpdate'
import { noteFailure } from '../workspace/failures'

/** The CLI's host: the same store and vault as the web host, registered as "ralph <command>" in origin.md. */
export function openCliServices(env: NodeJS.ProcessEnv, command: string): CoreServices & { close(): void } {
  const services = createServices({
    appDataDir: cliAppDataDir(env),
    env,
    host: { kind: 'web', openedFrom: `the command line (ralph ${command})` },
  })
  // "Update prices from the internet": a command prices with the data the app last downloaded (it never fetches).
  try {
    applyStoredPrices(services)
  } catch (err) {
    noteFailure(services.logger, 'prices: the kept price data was not used', err)
  }
  return { ...services, close: () => services.db.close() }
}
