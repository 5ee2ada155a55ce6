import { constants } from 'node:fs'
import { lstat, open, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { AppError } from '../../shared/errors'
import { forbiddenReason, editProjectConfig, ifUnreadable, isUnreadable, readConfigJson } from '../workspace'

/**
 * The project's own rules files (DESIGN.md §9): the instructions other coding agents read (`AGENTS.md`,
 * `CLAUDE.md`, `.cursorrules`, `.cursor/rules/`, `.clinerules`, `.github/copilot-instructions.md`), which often
 * hold the build and test commands the gates need. Found at the project root only, read into the stable part of
 * every iteration's system prompt and the verifier's.
 *
 * Bounds: each file is cut at RULE_FILE_CHARS and all of them together at RULES_TOTAL_CHARS, with a note saying
 * what was cut (the model can read the rest with read_file). Only regular files are read: a symlink (it could point
 * anywhere), a FIFO (it would block) or a device is skipped, and so is a folder that is a symlink. A path the file
 * tools refuse (credential stores, `.env` files) is never read.
 *
 * The user turns a file off in `.ralph/config.json` (`"rules": { "disabled": ["CLAUDE.md", ".cursor/rules"] }`;
 * a folder turns off everything in it). The model cannot change that file.
 */

/** One file's share of the prompt, in characters. */
export const RULE_FILE_CHARS = 12_000
/** All rules files together, in characters (about 6K tokens). */
export const RULES_TOTAL_CHARS = 24_000
/** Entries read from one rules folder. */
const FOLDER_ENTRIES = 50

export interface RulesFile {
  /** Project-relative, forward slashes. */
  path: string
  /** The file's size on disk. */
  bytes: number
  /** The text that goes into the prompt (capped, with the note). */
  text: string
  capped: boolean
  /** False when `.ralph/config.json` turns it off. */
  enabled: boolean
}

export interface ProjectRules {
  files: RulesFile[]
  /** The prompt section for the enabled files; '' when there are none. */
  text: string
}

/** `.ralph/config.json` "rules": the rules files (or folders) this project turns off. */
export const rulesSettingSchema = z.object({
  disabled: z.array(z.string().max(500)).max(200).default([]),
})

const rulesConfigSchema = z.object({ rules: rulesSettingSchema.optional() })

/** The paths `.ralph/config.json` turns off (normalised: no leading `./`, no trailing `/`). */
export async function disabledRules(projectDir: string): Promise<string[]> {
  // No config.json: no rule is turned off.
  const config = await readConfigJson(projectDir, rulesConfigSchema)
  return (config.rules?.disabled ?? []).map(normalise)
}

const normalise = (p: string) => p.trim().replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '')

function isDisabled(path: string, disabled: readonly string[]): boolean {
  return disabled.some((d) => d === path || path.startsWith(`${d}/`))
}

async function isRealDir(abs: string): Promise<boolean> {
  try {
    return (await lstat(abs)).isDirectory()
  } catch (err) {
    if (isUnreadable(err)) return false
    throw err
  }
}

/**
 * Reads up to `max` characters of a regular file without following a symlink or blocking on a FIFO; null for
 * anything else (or a file that vanished).
 */
async function readRegular(abs: string, max: number): Promise<{ text: string; bytes: number } | null> {
  let handle
  try {
    handle = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (err) {
    // Missing, a symlink (O_NOFOLLOW), or not ours to read: not a rules file.
    if (isUnreadable(err)) return null
    throw err
  }
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) return null
    // UTF-8 is at most 4 bytes a character: this many bytes always hold `max` characters and one more.
    const limit = Math.min(stat.size, (max + 1) * 4)
    const buf = Buffer.alloc(limit)
    const { bytesRead } = await handle.read(buf, 0, limit, 0)
    const text = buf.subarray(0, bytesRead).toString('utf8')
    return { text, bytes: stat.size }
  } finally {
    await handle.close()
  }
}

/** Rules files in the order they are shown: the cross-agent file first, then by tool. */
async function candidates(projectDir: string): Promise<string[]> {
  const found = ['AGENTS.md', 'CLAUDE.md', '.cursorrules']
  const folder = async (dir: string, exts: RegExp) => {
    // Every folder on the way must be a real one: a symlinked folder could lead out of the project.
    const segments = dir.split('/')
    for (let i = 1; i <= segments.length; i++)
      if (!(await isRealDir(join(projectDir, ...segments.slice(0, i))))) return []
    const names = (await readdir(join(projectDir, dir)).catch(ifUnreadable<string[]>([])))
      .filter((n) => exts.test(n))
      .sort()
      .slice(0, FOLDER_ENTRIES)
    return names.map((n) => `${dir}/${n}`)
  }
  found.push(...(await folder('.cursor/rules', /\.mdc?$/i)))
  // .clinerules is a file, or a folder of .md/.txt files.
  if (await isRealDir(join(projectDir, '.clinerules')))
    found.push(...(await folder('.clinerules', /\.(md|txt)$/i)))
  else found.push('.clinerules')
  if (await isRealDir(join(projectDir, '.github'))) found.push('.github/copilot-instructions.md')
  return found
}

/** Every rules file at the project root, enabled or not, with what goes into the prompt. */
export async function findRulesFiles(projectDir: string): Promise<RulesFile[]> {
  const disabled = await disabledRules(projectDir)
  const files: RulesFile[] = []
  let budget = RULES_TOTAL_CHARS
  for (const path of await candidates(projectDir)) {
    if (forbiddenReason(path) !== null) continue
    const read = await readRegular(join(projectDir, path), RULE_FILE_CHARS)
    if (!read) continue
    const body = read.text.trim()
    if (!body) continue
    const enabled = !isDisabled(path, disabled)
    const cap = Math.min(RULE_FILE_CHARS, enabled ? Math.max(0, budget) : RULE_FILE_CHARS)
    const capped = body.length > cap
    const text = capped
      ? `${body.slice(0, cap).trimEnd()}\n… (capped: ${path} is ${read.bytes} bytes and only its first ${cap} characters fit here; read it with read_file for the rest)`
      : body
    if (enabled) budget -= Math.min(body.length, cap)
    files.push({ path, bytes: read.bytes, text, capped, enabled })
  }
  return files
}

/** The prompt section for the enabled rules files ('' when there are none). */
export function rulesSection(files: readonly RulesFile[]): string {
  const shown = files.filter((f) => f.enabled)
  if (shown.length === 0) return ''
  return [
    "## The project's rules files",
    'The project keeps instructions for coding agents in these files. Follow them where they do not conflict with the rules above (they often name the build and test commands).',
    ...shown.map((f) => `\n### ${f.path}\n${f.text}`),
  ].join('\n')
}

/** The rules files and their prompt section. */
export async function readProjectRules(projectDir: string): Promise<ProjectRules> {
  const files = await findRulesFiles(projectDir)
  return { files, text: rulesSection(files) }
}

/**
 * Turns one rules file (or folder) on or off for this project in `.ralph/config.json`, keeping everything else in
 * the file as it was. Returns the paths turned off afterwards.
 */
export async function setRuleEnabled(projectDir: string, path: string, enabled: boolean): Promise<string[]> {
  const target = normalise(path)
  if (!target || target.split('/').includes('..'))
    throw new AppError('invalid-input', `"${path}" is not a path inside the project (e.g. CLAUDE.md).`)
  const current = await disabledRules(projectDir)
  const next = enabled ? current.filter((d) => d !== target) : [...new Set([...current, target])]
  await editProjectConfig(projectDir, 'rules', (rules) => ({
    ...(typeof rules === 'object' && rules !== null ? rules : {}),
    disabled: next,
  }))
  return next
}
