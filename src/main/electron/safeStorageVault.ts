import { safeStorage } from 'electron'
import { FileVault } from '../secrets/fileVault'
import type { SecretVault } from '../secrets/types'

/**
 * Keys encrypted by the OS keychain (safeStorage), stored as ciphertext in the app data folder. Where the OS
 * offers no encryption (a Linux desktop without a keyring), falls back to the 0600 file and the UI says so.
 */
export function createDesktopVault(appDataDir: string): SecretVault {
  if (!safeStorage.isEncryptionAvailable()) return new FileVault(appDataDir)
  return new FileVault(
    appDataDir,
    {
      encode: (plain) => safeStorage.encryptString(plain).toString('base64'),
      decode: (stored) => safeStorage.decryptString(Buffer.from(stored, 'base64')),
    },
    'secrets.safe.json',
  )
}
