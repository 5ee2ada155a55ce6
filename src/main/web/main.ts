import { parseArgs } from 'node:util'
import { join } from 'node:path'
import { createCore } from '../api/core'
import { resolveAppDataDir } from '../workspace/appPaths'
import { createFileLogger } from '../workspace/logFile'
import { appRoot } from '../workspace/resources'
import { newToken } from './auth'
import { startWebServer } from './server'

const DEFAULT_PORT = 5178

/** `npm run web -- [--port N]`: the same app for a browser, on 127.0.0.1 only. */
async function main(): Promise<void> {
  let values
  try {
    ;({ values } = parseArgs({
      options: { port: { type: 'string' }, help: { type: 'boolean' } },
      strict: true,
    }))
  } catch (err) {
    console.error(`${(err as Error).message}\nUsage: npm run web -- [--port N]`)
    process.exit(2)
  }
  if (values.help) {
    console.log('Usage: npm run web -- [--port N]   (default port 5178; 0 picks a free port)')
    return
  }
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a whole number from 0 to 65535, got "${values.port}".`)
    process.exit(2)
  }
  const staticDir = process.env.RALPH_RENDERER_DIR ?? join(appRoot(), 'out', 'renderer')
  const appDataDir = resolveAppDataDir()
  // Refused clients and swallowed failures go to the app's log file, and to stderr for whoever runs the host.
  const logger = createFileLogger(appDataDir, {
    echo: (line) => void process.stderr.write(`[web host] ${line}\n`),
  })
  let core
  try {
    core = createCore({
      appDataDir,
      env: process.env,
      host: { kind: 'web', openedFrom: 'Ralph Studio web host', logger },
    })
  } catch (err) {
    console.error((err as Error).message)
    process.exit(5)
  }
  let server
  try {
    server = await startWebServer({
      core,
      token: newToken(),
      staticDir,
      port,
      log: (line) => logger.warn(line),
    })
  } catch (err) {
    console.error((err as Error).message)
    await core.close()
    process.exit(2)
  }
  console.log(`Ralph Studio web host: ${server.url}`)
  console.log('Open that URL in a browser on this machine. Press Ctrl+C to stop.')
  const stop = (signal: NodeJS.Signals) => {
    // Running tasks end interrupted (resumable, their pre-task snapshots intact) before the store closes.
    void server
      .close()
      .then(() => core.close(`the web host was stopped by ${signal === 'SIGINT' ? 'Ctrl+C' : signal}`))
      .then(() => process.exit(0))
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

void main()
