import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { _electron as electron } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { makeTempDir } from '../helpers/tempDir'

const pkg = join(process.cwd(), 'node_modules', 'electron')
const pathFile = join(pkg, 'path.txt')
const binary = existsSync(pathFile) ? join(pkg, 'dist', readFileSync(pathFile, 'utf8')) : null
const nativeBinding = process.env.RALPH_NATIVE_BINDING
const skipReason =
  !binary || !existsSync(binary)
    ? 'the Electron binary is not installed here (it cannot be downloaded offline)'
    : !nativeBinding
      ? 'RALPH_NATIVE_BINDING is not set (run `npm start` once to build the Electron-ABI database driver)'
      : null

if (skipReason) console.log(`Electron e2e skipped: ${skipReason}.`)

// Runs only where Electron exists; everything it checks is also proven through the web host in Chromium.
describe.skipIf(skipReason !== null)('desktop app (Electron)', () => {
  it('opens a sandboxed window that serves the contract over IPC', async () => {
    const home = makeTempDir('ralph-home-')
    const app = await electron.launch({
      executablePath: binary!,
      args: [process.cwd()],
      env: { ...process.env, RALPH_HOME: home.path, RALPH_NATIVE_BINDING: nativeBinding! },
    })
    try {
      const page = await app.firstWindow()
      await page.getByText('Projects').first().waitFor()
      const prefs = await app.evaluate(({ BrowserWindow }) => {
        // getLastWebPreferences exists at runtime but is missing from Electron's typings.
        const contents = BrowserWindow.getAllWindows()[0]!.webContents as unknown as {
          getLastWebPreferences(): {
            sandbox?: boolean
            contextIsolation?: boolean
            nodeIntegration?: boolean
          } | null
        }
        const wp = contents.getLastWebPreferences()
        return {
          sandbox: wp?.sandbox,
          contextIsolation: wp?.contextIsolation,
          nodeIntegration: wp?.nodeIntegration,
        }
      })
      expect(prefs).toEqual({ sandbox: true, contextIsolation: true, nodeIntegration: false })
      expect(await page.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe(
        'undefined',
      )
      const info = await page.evaluate(() =>
        (globalThis as unknown as { ralph: { call(n: string, i: unknown): Promise<unknown> } }).ralph.call(
          'app.info',
          {},
        ),
      )
      expect(info).toMatchObject({ ok: true, value: { host: 'electron', nativeFolderPicker: true } })
    } finally {
      await app.close()
      home.cleanup()
    }
  })
})
