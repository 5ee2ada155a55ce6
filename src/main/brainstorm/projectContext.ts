import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { attempt, isMissing, noteFailure, type Logger } from '../workspace'

const README_CAP = 3000
const VISION_CAP = 4000

async function readCapped(log: Logger, file: string, cap: number): Promise<string | null> {
  let text: string
  try {
    text = (await readFile(file, 'utf8')).trim()
  } catch (err) {
    if (!isMissing(err)) noteFailure(log, `${file} could not be read; SETUP asks without it`, err)
    return null
  }
  if (!text) return null
  return text.length > cap ? `${text.slice(0, cap)}\n… (truncated)` : text
}

/** The manifest's identity only (name, description, scripts, dependencies): enough to know the stack. */
async function manifest(log: Logger, projectDir: string): Promise<string | null> {
  const raw = await readCapped(log, join(projectDir, 'package.json'), 50_000)
  if (!raw) return null
  const why = 'package.json is not valid JSON; SETUP asks without it'
  return attempt(log, why, () => manifestSummary(JSON.parse(raw) as Record<string, unknown>), null)
}

function manifestSummary(pkg: Record<string, unknown>): string {
  const names = (v: unknown) => (v && typeof v === 'object' ? Object.keys(v).slice(0, 30).join(', ') : '')
  return [
    `name: ${String(pkg.name ?? '')}`,
    pkg.description ? `description: ${String(pkg.description)}` : '',
    names(pkg.scripts) ? `scripts: ${names(pkg.scripts)}` : '',
    names(pkg.dependencies) ? `dependencies: ${names(pkg.dependencies)}` : '',
    names(pkg.devDependencies) ? `devDependencies: ${names(pkg.devDependencies)}` : '',
  ]
    .filter(Boolean)
    .join('\n')
}

/**
 * What an existing project already says about itself, for SETUP to ask only the rest (GSD #637). Null for an
 * empty folder.
 */
export async function readProjectContext(projectDir: string, log: Logger): Promise<string | null> {
  const readme =
    (await readCapped(log, join(projectDir, 'README.md'), README_CAP)) ??
    (await readCapped(log, join(projectDir, 'readme.md'), README_CAP))
  const parts = [
    readme ? `README.md:\n${readme}` : null,
    await manifest(log, projectDir).then((m) => (m ? `package.json:\n${m}` : null)),
    await readCapped(log, join(projectDir, 'VISION.md'), VISION_CAP).then((v) =>
      v ? `VISION.md (existing):\n${v}` : null,
    ),
  ].filter((p): p is string => p !== null)
  return parts.length ? parts.join('\n\n') : null
}
