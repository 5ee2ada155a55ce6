// The project's engine: `.ralph/config.json` "engine" (built-in | claude-code | codex) and "engineModel" (the model
// the engine is asked for; null: its own default). Written only by the user (the CLI and the UI): the model cannot
// write the file, so a task cannot switch itself to another program.
import { z } from 'zod'
import { AppError } from '../../shared/errors'
import { editProjectConfig, readConfigJson } from '../workspace'
import { ENGINE_IDS, type EngineId } from './types'

/** The two keys as the loop's config schema validates them (spread into loopConfigSchema: one source). */
export const engineSettingShape = {
  engine: z.enum(ENGINE_IDS).default('built-in'),
  engineModel: z.string().trim().min(1).nullable().default(null),
}

const engineConfigSchema = z.object(engineSettingShape).loose()

export interface ProjectEngine {
  engine: EngineId
  engineModel: string | null
}

export async function readProjectEngine(projectDir: string): Promise<ProjectEngine> {
  const { engine, engineModel } = await readConfigJson(projectDir, engineConfigSchema)
  return { engine, engineModel }
}

export function parseEngineId(value: string): EngineId {
  const found = ENGINE_IDS.find((id) => id === value)
  if (!found)
    throw new AppError(
      'invalid-input',
      `Unknown engine "${value}". The engines are: ${ENGINE_IDS.join(', ')}.`,
    )
  return found
}

/** Sets the project's engine (and its model when given; `null` clears it), keeping the rest of the file. */
export async function setProjectEngine(
  projectDir: string,
  engine: EngineId,
  engineModel?: string | null,
): Promise<ProjectEngine> {
  await editProjectConfig(projectDir, 'engine', () => engine)
  if (engineModel !== undefined) {
    const model = engineModel?.trim() || null
    await editProjectConfig(projectDir, 'engineModel', () => model)
  }
  return readProjectEngine(projectDir)
}
