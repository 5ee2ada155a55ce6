export interface ModuleRef {
  kind: 'domain' | 'host' | 'feature'
  name: string
  /** Absolute posix path of the module folder. */
  root: string
  /** Path inside the module without extension; '' for the folder itself. */
  rest: string
}
export const HOSTS: Set<string>
export function moduleOf(file: string): ModuleRef | undefined
export function resolveImport(fromFile: string, specifier: string): string | undefined
export function isIndex(rest: string): boolean
export function isTestFile(file: string): boolean
export function crossing(fromFile: string, specifier: string): { from: ModuleRef; to: ModuleRef } | undefined
export function indexSpecifier(fromFile: string, to: ModuleRef): string
