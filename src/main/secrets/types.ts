/** Where secrets are kept for one host: Electron safeStorage in the desktop app, a 0600 file elsewhere. */
export interface SecretVault {
  readonly kind: 'safe-storage' | 'file'
  get(name: string): string | null
  set(name: string, value: string): void
  delete(name: string): void
}
