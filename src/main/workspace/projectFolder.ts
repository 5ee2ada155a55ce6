import { accessSync, constants, existsSync, readdirSync, realpathSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { isAbsolute, join, resolve, win32 } from 'node:path'
import { AppError } from '../../shared/errors'
import { isUnreadable } from './failures'
import { credentialStoreOf } from './offLimits'

/** The flag that confirms opening a folder that looks like a home folder, for the CLI's messages. */
export const HOME_LIKE_FLAG = '--yes-home-like'

/** Folders that are the system's, everything inside them included (DESIGN.md §14). */
const SYSTEM_TREES: Partial<Record<NodeJS.Platform, string[]>> = {
  linux: [
    '/etc',
    '/usr',
    '/bin',
    '/sbin',
    '/lib',
    '/lib32',
    '/lib64',
    '/libx32',
    '/boot',
    '/dev',
    '/proc',
    '/sys',
    '/run',
    '/var/lib',
    '/var/log',
    '/var/cache',
    '/var/spool',
    '/var/run',
    '/var/mail',
    '/snap',
  ],
  darwin: [
    '/System',
    '/Library',
    '/Applications',
    '/usr',
    '/bin',
    '/sbin',
    '/dev',
    '/etc',
    '/private/etc',
    '/private/var/db',
    '/private/var/log',
    '/cores',
  ],
}
/** Folders that hold others' things: refused themselves, while a project inside them is fine (/opt/app, /var/www). */
const SYSTEM_HOLDERS: Partial<Record<NodeJS.Platform, string[]>> = {
  linux: ['/var', '/opt', '/home', '/tmp', '/var/tmp', '/mnt', '/media', '/srv', '/root'],
  darwin: [
    '/Users',
    '/Volumes',
    '/private',
    '/var',
    '/private/var',
    '/tmp',
    '/private/tmp',
    '/opt',
    '/var/root',
    '/private/var/root',
  ],
}

const within = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`)

/** A lane's working copy inside the app data folder (issue #38): a project Ralph made, its sandbox hides the rest. */
const LANE_WORK = /^lanes\/[A-Za-z0-9][A-Za-z0-9_-]{0,63}\/lane-[1-9][0-9]?\/work(\/|$)/

/**
 * Why a folder can never be a project, or null: the whole disk, a system folder, the home folder itself.
 * The model's commands may write anywhere in a project, and the file tools read it: none of these can be one.
 */
export function systemFolderReason(
  real: string,
  { platform = process.platform, home = homedir() }: { platform?: NodeJS.Platform; home?: string } = {},
): string | null {
  if (platform === 'win32') {
    const p = win32
      .normalize(real)
      .replace(/[\\/]+$/, '')
      .toLowerCase()
    if (/^[a-z]:$/.test(p) || /^\\\\[^\\]+\\[^\\]+$/.test(p)) return 'it is the root of a drive'
    const drive = p.slice(0, 2)
    if (
      ['\\windows', '\\program files', '\\program files (x86)', '\\programdata'].some((d) =>
        within(p.replace(/\\/g, '/'), (drive + d).replace(/\\/g, '/')),
      )
    )
      return 'it is a system folder of Windows'
    if (p === `${drive}\\users`) return "it holds every user's home folder"
    if (
      home !== '' &&
      p ===
        win32
          .normalize(home)
          .replace(/[\\/]+$/, '')
          .toLowerCase()
    )
      return 'it is your home folder itself'
    return null
  }
  if (real === '/') return 'it is the root of the file system'
  // The home folder by its real path as well (a HOME reached through a symlink: /home → /var/home). A folder
  // that holds it (/var/home, /data/home) would hand the model the user's dotfiles just the same.
  for (const h of homePaths(home)) {
    if (real === h) return 'it is your home folder itself'
    if (within(h, real)) return `it contains your home folder (${h})`
    if (within(real, h)) {
      const rel = real.slice(h.length + 1)
      const store = credentialStoreOf(rel.toLowerCase())
      const lane = store?.endsWith('ralph-studio') && LANE_WORK.test(rel.slice(store.length + 1))
      if (store !== null && !lane) return `it is inside a credential store of your home folder (~/${store})`
    }
  }
  if ((SYSTEM_TREES[platform] ?? []).some((d) => within(real, d))) return 'it is a system folder'
  if ((SYSTEM_HOLDERS[platform] ?? []).includes(real))
    return "it is a system folder that holds other people's or programs' files"
  return null
}

/** The home folder as given and as its real path (without a trailing slash); none for '' or '/'. */
function homePaths(home: string): string[] {
  const given = home.replace(/\/+$/, '')
  if (given === '') return []
  let real = given
  try {
    real = realpathSync(given)
  } catch (err) {
    // A home that does not exist (a test's, a removed user's): compared as given.
    if (!isUnreadable(err)) throw err
  }
  return [...new Set([given, real])].filter((h) => h !== '' && h !== '/')
}

/** Names found at the top of a home folder. Two or more of them and a folder looks like one. */
const HOME_SIGNS = [
  '.ssh',
  '.bashrc',
  '.zshrc',
  '.profile',
  '.bash_profile',
  '.bash_history',
  '.zsh_history',
  '.gnupg',
  '.aws',
  '.config',
  '.local',
  '.cache',
  'Desktop',
  'Documents',
  'Downloads',
  'Library',
  'Pictures',
  'Music',
]

/** What makes a folder look like a home folder (its top-level names), or [] when it does not. */
export function homeLikeSigns(dir: string): string[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch (err) {
    if (isUnreadable(err)) return []
    throw err
  }
  const signs = HOME_SIGNS.filter((s) => names.includes(s))
  return signs.length >= 2 ? signs : []
}

/**
 * Refuses, until the user confirms, a folder that looks like a home folder and is not a project yet (no
 * `.ralph/`): the model would see everything in it but what the file tools and the sandbox hide by name.
 * The error carries `{ needsConfirmation: 'home-like', signs }` for the UI to ask; the CLI names the flag.
 */
export function checkHomeLike(
  real: string,
  confirmed: boolean,
  confirmHint = `confirm it first (ralph init ${HOME_LIKE_FLAG}, or open it in the app and confirm)`,
): void {
  if (confirmed || existsSync(join(real, '.ralph'))) return
  const signs = homeLikeSigns(real)
  if (signs.length === 0) return
  throw new AppError(
    'invalid-input',
    `${real} looks like a home folder (it has ${signs.join(', ')}). The model would see and change everything ` +
      `in it except credential stores and .env files. Open a project folder inside it instead, or ${confirmHint}.`,
    { needsConfirmation: 'home-like', path: real, signs },
  )
}

/**
 * Checks that a path names an existing folder Ralph Studio can write to (or only read, for commands that change
 * nothing), and returns its real absolute path. Every refusal says what was wrong and what to do.
 */
export function checkProjectFolder(
  input: string,
  {
    cwd = process.cwd(),
    write = true,
    confirmHomeLike = false,
    confirmHint,
  }: { cwd?: string; write?: boolean; confirmHomeLike?: boolean; confirmHint?: string } = {},
): string {
  const trimmed = input.trim()
  if (!trimmed) throw new AppError('invalid-input', 'Enter the path of a folder, e.g. /home/you/my-app.')
  const absolute = isAbsolute(trimmed) ? trimmed : resolve(cwd, trimmed)
  let stat
  try {
    stat = statSync(absolute)
  } catch (err) {
    throw new AppError(
      'invalid-input',
      `No folder exists at ${absolute}. Check the path, or create the folder first.`,
      undefined,
      { cause: err },
    )
  }
  if (!stat.isDirectory()) {
    throw new AppError(
      'invalid-input',
      `${absolute} is a file, not a folder. Open the folder that contains your project instead.`,
    )
  }
  const real = realpathSync(absolute)
  const refused = systemFolderReason(real)
  if (refused) {
    throw new AppError(
      'invalid-input',
      `Ralph Studio will not open ${real} as a project: ${refused}. Open a project folder instead ` +
        '(the model may change every file in a project and run commands there).',
    )
  }
  try {
    accessSync(real, (write ? constants.W_OK : 0) | constants.R_OK | constants.X_OK)
  } catch (err) {
    if (!write)
      throw new AppError(
        'io',
        `Ralph Studio cannot read ${real} (permission denied). Fix its permissions.`,
        undefined,
        { cause: err },
      )
    throw new AppError(
      'io',
      `Ralph Studio cannot write to ${real} (permission denied); it needs to create .ralph/ there. ` +
        'Choose a folder you own, or fix its permissions.',
      undefined,
      { cause: err },
    )
  }
  // Whatever makes a folder a project (.ralph/) waits for the user's word on a home-like one.
  if (write) checkHomeLike(real, confirmHomeLike, confirmHint)
  return real
}
