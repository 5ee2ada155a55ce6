import { readFile } from 'node:fs/promises'
import { join } from 'node:path'

const README_CAP = 3000
const VISION_CAP = 4000

async function readCapped(file: string, cap: number): Promise<string | null> {
  try {
    const text = (await readFile(file, 'utf8')).trim()
    if (!text) return null
    return text.length > cap ? `${text.slice(0, cap)}\n… (truncated)` : text
  } catch {
    return null
  }
}

/** The manifest's identity only (name, description, scripts, dependencies): enough to know the stack. */
async function manifest(projectDir: string): Promise<string | null> {
  const raw = await readCapped(join(projectDir, 'package.json'), 50_000)
  if (!raw) return null
  try {
    const pkg = JSON.parse(raw) as Record<string, unknown>
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
  } catch {
    return null
  }
}

/**
 * What an existing project already says about itself, for SETUP to ask only the rest (GSD #637). Null for an
 * empty folder.
 */
export async function readProjectContext(projectDir: string): Promise<string | null> {
  const readme =
    (await readCapped(join(projectDir, 'README.md'), README_CAP)) ??
    (await readCapped(join(projectDir, 'readme.md'), README_CAP))
  const parts = [
    readme ? `README.md:\n${readme}` : null,
    await manifest(projectDir).then((m) => (m ? `package.json:\n${m}` : null)),
    await readCapped(join(projectDir, 'VISION.md'), VISION_CAP).then((v) =>
      v ? `VISION.md (existing):\n${v}` : null,
    ),
  ].filter((p): p is string => p !== null)
  return parts.length ? parts.join('\n\n') : null
}
