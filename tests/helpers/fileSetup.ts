// Runs in every test file of the node project (vitest.config.ts setupFiles): what a file shares among its tests
// is closed after its last one. Deliberately free of heavy imports: it is loaded by every file.
import { afterAll } from 'vitest'

const SHARED_CHROMIUM = Symbol.for('ralph.tests.sharedChromium')

afterAll(async () => {
  const holder = globalThis as { [SHARED_CHROMIUM]?: Promise<{ close(): Promise<void> }> }
  const launched = holder[SHARED_CHROMIUM]
  if (launched === undefined) return
  delete holder[SHARED_CHROMIUM]
  // A launch that failed was reported by the session that asked for it.
  const browser = await launched.catch(() => null)
  await browser?.close()
})
