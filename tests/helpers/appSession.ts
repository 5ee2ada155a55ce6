import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { startFakeLlmServer, type FakeLlmServer } from '../fixtures/fakeLlmServer'
import { launchChromium } from './browser'
import { makeTempDir } from './tempDir'
import { callApi, startWebHost, type WebHost } from './webHost'

export interface AppSession {
  llm: FakeLlmServer
  host: WebHost
  browser: Browser
  page: Page
  /** The project folder, opened through the API. */
  dir: string
  projectId: number
  call: (name: string, input: unknown) => ReturnType<typeof callApi>
  close(): Promise<void>
}

/**
 * What a browser flow needs: the real `npm run web` talking to the fake LLM server, Chromium holding the token
 * cookie, and one project folder (with `files`) opened through the API.
 */
export async function startAppSession(
  project: string,
  files: Record<string, string> = {},
  /** Host environment on top of the defaults (e.g. RALPH_MODEL for a model with a catalog price). */
  env: NodeJS.ProcessEnv = {},
  /** How the host is started (startWebHost's `launch`). */
  launch: 'npm' | 'node' = 'npm',
): Promise<AppSession> {
  const home = makeTempDir('ralph-home-')
  const work = makeTempDir('ralph-work-')
  const llm = await startFakeLlmServer()
  const host = await startWebHost(
    {
      RALPH_HOME: home.path,
      RALPH_PROVIDER: 'openai-compatible',
      RALPH_MODEL: 'fake-model',
      RALPH_BASE_URL: llm.baseUrl,
      ...env,
    },
    0,
    launch,
  )
  const browser = await launchChromium()
  const page = await browser.newPage({ viewport: { width: 1280, height: 820 } })
  const dir = join(work.path, project)
  mkdirSync(dir)
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  const call = (name: string, input: unknown) => callApi(host, name, input)
  const opened = await call('projects.open', { path: dir })
  if (!opened.ok) throw new Error(`projects.open failed: ${JSON.stringify(opened)}`)
  await page.goto(host.url)
  await page.waitForURL(`${host.origin}/`)
  return {
    llm,
    host,
    browser,
    page,
    dir,
    projectId: opened.value.id as number,
    call,
    async close() {
      await browser.close()
      await host.stop()
      await llm.close()
      home.cleanup()
      work.cleanup()
    },
  }
}
