import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { startFakeLlmServer, type FakeLlmServer } from '../fixtures/fakeLlmServer'
import { openPage, sharedChromium } from './browser'
import { makeTempDir } from './tempDir'
import { callApi, startWebHost, type WebHost } from './webHost'

export interface AppSession {
  llm: FakeLlmServer
  host: WebHost
  page: Page
  /** The project folder, opened through the API. */
  dir: string
  projectId: number
  call: (name: string, input: unknown) => ReturnType<typeof callApi>
  /** Another project folder (with `files`) opened through the API on the same host: its id. */
  openProject(project: string, files?: Record<string, string>): Promise<number>
  /** A page in a fresh context (no state from the other pages), signed in to the host. */
  newPage(viewport?: { width: number; height: number }): Promise<Page>
  close(): Promise<void>
}

/**
 * What a browser flow needs: the real `npm run web` talking to the fake LLM server, a page in the file's Chromium
 * (its own context) holding the token cookie, and one project folder (with `files`) opened through the API.
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
  const call = (name: string, input: unknown) => callApi(host, name, input)
  const contexts: BrowserContext[] = []
  const newPage = async (viewport = { width: 1280, height: 820 }) => {
    const page = await openPage(await sharedChromium(), viewport)
    contexts.push(page.context())
    // The token in the address sets the session cookie, then the app drops it from the address bar.
    await page.goto(host.url)
    await page.waitForURL(`${host.origin}/`)
    return page
  }
  const openProject = async (name: string, projectFiles: Record<string, string> = {}) => {
    const dir = join(work.path, name)
    mkdirSync(dir)
    for (const [file, text] of Object.entries(projectFiles)) writeFileSync(join(dir, file), text)
    const opened = await call('projects.open', { path: dir })
    if (!opened.ok) throw new Error(`projects.open failed: ${JSON.stringify(opened)}`)
    return opened.value.id as number
  }
  const projectId = await openProject(project, files)
  const page = await newPage()
  return {
    llm,
    host,
    page,
    dir: join(work.path, project),
    projectId,
    call,
    openProject,
    newPage,
    async close() {
      for (const context of contexts) await context.close()
      await host.stop()
      await llm.close()
      home.cleanup()
      work.cleanup()
    },
  }
}
