import { parseJsonOr } from '../../shared/json'
import { chmodSync, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { AppError } from '../../shared/errors'
import { writeFileAtomicSync } from '../workspace'
import type { SecretVault } from './types'

/**
 * Secrets for the web host and the CLI: a JSON file readable only by the user (0600) in the app data folder.
 * An optional codec lets the desktop app store safeStorage ciphertext in the same format.
 */
export class FileVault implements SecretVault {
  readonly kind: 'file' | 'safe-storage'
  private readonly file: string

  constructor(
    appDataDir: string,
    private readonly codec?: { encode(plain: string): string; decode(stored: string): string },
    fileName = 'secrets.json',
  ) {
    this.file = join(appDataDir, fileName)
    this.kind = codec ? 'safe-storage' : 'file'
  }

  get(name: string): string | null {
    const stored = this.readAll()[name]
    if (stored === undefined) return null
    return this.codec ? this.codec.decode(stored) : stored
  }

  set(name: string, value: string): void {
    const all = this.readAll()
    all[name] = this.codec ? this.codec.encode(value) : value
    this.writeAll(all)
  }

  delete(name: string): void {
    const all = this.readAll()
    if (!(name in all)) return
    delete all[name]
    this.writeAll(all)
  }

  private readAll(): Record<string, string> {
    if (!existsSync(this.file)) return {}
    const invalid = () =>
      new AppError(
        'config',
        `The secrets file ${this.file} is not valid JSON. Fix or delete it and enter your API keys again.`,
      )
    let text: string
    try {
      text = readFileSync(this.file, 'utf8')
    } catch (err) {
      // Unreadable is as unusable as invalid: the same advice, with the reason kept as the cause.
      throw Object.assign(invalid(), { cause: err })
    }
    // Not JSON, or not an object of names: the same error.
    const parsed = parseJsonOr(text, null)
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, string>
    throw invalid()
  }

  private writeAll(all: Record<string, string>): void {
    writeFileAtomicSync(this.file, JSON.stringify(all, null, 2) + '\n', 0o600)
    chmodSync(this.file, 0o600)
  }
}
