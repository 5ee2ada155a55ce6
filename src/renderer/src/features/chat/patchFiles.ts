import type { ReadArgs } from './toolArgs'

/**
 * The files an engine's patch changed (Codex's `apply_patch{changes: [{path, kind}]}`), for the call's line: the
 * one file, or the first and how many more. Null for other tools and for a patch whose files are not known.
 */
export function patchFiles(name: string, read: ReadArgs | null): string | null {
  if (name !== 'apply_patch') return null
  const changes = read?.args.changes
  if (!Array.isArray(changes)) return null
  const paths = changes.flatMap((c: unknown) =>
    c && typeof c === 'object' && typeof (c as { path?: unknown }).path === 'string'
      ? [(c as { path: string }).path]
      : [],
  )
  if (!paths.length) return null
  return paths.length === 1 ? paths[0]! : `${paths[0]!} and ${paths.length - 1} more`
}

/** A shell call's command (`run_command{command}`, an engine's Bash or Codex command too), for the call's line. */
export function commandOf(name: string, read: ReadArgs | null): string | null {
  const command = read?.args.command
  return name === 'run_command' && typeof command === 'string' && command.trim() ? command.trim() : null
}
