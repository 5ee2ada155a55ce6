import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isMissing } from './failures'
import { appRoot } from './resources'

/** The app version from package.json (the desktop host passes Electron's own instead). */
export function appVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(appRoot(), 'package.json'), 'utf8')) as { version: string }
    return pkg.version
  } catch (err) {
    // No package.json beside the app (a bundled host passes its own version), or not JSON.
    if (isMissing(err) || err instanceof SyntaxError) return '0.0.0'
    throw err
  }
}
