import { createCore, type Core, type HostAdapter } from '../../src/main/api/core'
import { makeTempDir } from './tempDir'

/** A real core (file database, file vault) in a temp app data folder. */
export function makeCore(env: NodeJS.ProcessEnv = {}, host: Partial<HostAdapter> = {}) {
  const home = makeTempDir('ralph-home-')
  const core: Core = createCore({
    appDataDir: home.path,
    env,
    host: { kind: 'web', openedFrom: 'test', ...host },
  })
  return {
    core,
    home: home.path,
    async cleanup() {
      await core.close()
      home.cleanup()
    },
  }
}
