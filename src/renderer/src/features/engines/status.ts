import { engineLabels } from '../../../../shared/api/engines'
import { useProjectEngine } from './queries'

/**
 * What the status bar says in place of provider/model when the project's engine is an agent CLI ("Claude Code ·
 * sonnet"); null for the built-in loop (or outside a project).
 */
export function useEngineStatus(projectId: number | null): string | null {
  const setting = useProjectEngine(projectId ?? 0, projectId !== null)
  const s = projectId === null ? undefined : setting.data
  if (!s || s.engine === 'built-in') return null
  return `${engineLabels[s.engine]} · ${s.engineModel ?? 'its default model'}`
}
