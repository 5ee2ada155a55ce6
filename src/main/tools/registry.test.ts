import { asSchema } from 'ai'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { modelTools, readOnlyModelTools, readOnlyToolNames, toolListText, toolNames, tools } from './registry'

// What the model is shown of its tools, as taken before the registry (issue #25): names in order, descriptions
// and JSON schemas byte for byte. A deliberate change to a tool's text updates this file with it.
const golden = JSON.parse(readFileSync(join(__dirname, 'modelTools.golden.json'), 'utf8')) as {
  names: string[]
  readOnly: string[]
  tools: Record<string, { description: string; schema: unknown }>
}

describe('the tool registry', () => {
  it('offers the model exactly the tools, descriptions and schemas it was offered before', async () => {
    expect(toolNames).toEqual(golden.names)
    expect(Object.keys(modelTools)).toEqual(golden.names)
    for (const [name, tool] of Object.entries(modelTools)) {
      expect(tool.description).toBe(golden.tools[name]!.description)
      expect(JSON.stringify(await asSchema(tool.inputSchema).jsonSchema)).toBe(
        JSON.stringify(golden.tools[name]!.schema),
      )
    }
  })

  it('derives the read-only set (Ask mode) from the tools themselves', () => {
    expect(readOnlyToolNames).toEqual(golden.readOnly)
    expect(Object.keys(readOnlyModelTools)).toEqual(golden.readOnly)
    expect(tools.filter((t) => t.readOnly).map((t) => t.name)).toEqual(golden.readOnly)
  })

  it('names tools in prose as the Ask prompt always did', () => {
    expect(toolListText(readOnlyToolNames)).toBe('read_file, list_files and grep')
    expect(toolListText(['grep'])).toBe('grep')
  })
})
