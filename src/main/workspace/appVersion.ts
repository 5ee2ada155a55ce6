import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { appRoot } from './resources'

/** The app version from package.json (the desktop host passes Electron's own instead). */
export function appVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(appRoot(), 'package.json'), 'utf8')) as { version: string }
    return pkg.version
  } catch {
    return '0.0.0'
  }
}
