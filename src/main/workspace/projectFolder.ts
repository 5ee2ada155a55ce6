import { accessSync, constants, realpathSync, statSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { AppError } from '../../shared/errors'

/**
 * Checks that a path names an existing folder Ralph Studio can write to (or only read, for commands that change
 * nothing), and returns its real absolute path. Every refusal says what was wrong and what to do.
 */
export function checkProjectFolder(
  input: string,
  { cwd = process.cwd(), write = true }: { cwd?: string; write?: boolean } = {},
): string {
  const trimmed = input.trim()
  if (!trimmed) throw new AppError('invalid-input', 'Enter the path of a folder, e.g. /home/you/my-app.')
  const absolute = isAbsolute(trimmed) ? trimmed : resolve(cwd, trimmed)
  let stat
  try {
    stat = statSync(absolute)
  } catch {
    throw new AppError(
      'invalid-input',
      `No folder exists at ${absolute}. Check the path, or create the folder first.`,
    )
  }
  if (!stat.isDirectory()) {
    throw new AppError(
      'invalid-input',
      `${absolute} is a file, not a folder. Open the folder that contains your project instead.`,
    )
  }
  const real = realpathSync(absolute)
  try {
    accessSync(real, (write ? constants.W_OK : 0) | constants.R_OK | constants.X_OK)
  } catch {
    if (!write)
      throw new AppError('io', `Ralph Studio cannot read ${real} (permission denied). Fix its permissions.`)
    throw new AppError(
      'io',
      `Ralph Studio cannot write to ${real} (permission denied); it needs to create .ralph/ there. ` +
        'Choose a folder you own, or fix its permissions.',
    )
  }
  return real
}
