// The per-project switch of each server: `.ralph/config.json` "mcp": { "disabled": [NAME, …] }, written only by the
// user (the CLI and the UI; the model cannot write the file), like the rules files' switches.
import { z } from 'zod'
import { editProjectConfig, readConfigJson } from '../workspace'

const mcpConfigSchema = z
  .object({
    mcp: z
      .object({ disabled: z.array(z.string()).optional() })
      .loose()
      .optional(),
  })
  .loose()

/** The servers switched off in this project. */
export async function disabledServers(projectDir: string): Promise<string[]> {
  // No config.json: every server is on.
  return (await readConfigJson(projectDir, mcpConfigSchema)).mcp?.disabled ?? []
}

/** Turns one server on or off for this project, keeping the rest of the file. Returns the servers now off. */
export async function setServerEnabled(
  projectDir: string,
  name: string,
  enabled: boolean,
): Promise<string[]> {
  const current = await disabledServers(projectDir)
  const next = enabled ? current.filter((d) => d !== name) : [...new Set([...current, name])]
  await editProjectConfig(projectDir, 'mcp', (mcp) => ({
    ...(typeof mcp === 'object' && mcp !== null ? mcp : {}),
    disabled: next,
  }))
  return next
}
