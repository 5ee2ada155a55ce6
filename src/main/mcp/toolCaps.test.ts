import { describe, expect, it } from 'vitest'
import { capTools, type ToolCaps } from './toolCaps'

const tool = (name: string, pad = 0) => ({
  name,
  description: 'x'.repeat(pad),
  inputSchema: { type: 'object' },
})
const caps: ToolCaps = {
  perServer: 3,
  perServerBytes: 10_000,
  total: 5,
  totalBytes: 100_000,
  perToolBytes: 2_000,
}

describe('MCP tool caps', () => {
  it('keeps the first tools of each server up to its share and the total, and says what was left out', () => {
    const many = { tools: Array.from({ length: 10 }, (_, i) => tool(`t${i}`)) }
    const [a, b, c] = capTools([many, { tools: [tool('x'), tool('big', 5_000), tool('y')] }, many], caps)
    expect(a!.kept.map((t) => t.name)).toEqual(['t0', 't1', 't2'])
    expect(a!.note).toBe(
      "7 of its 10 tools left out of the model's prompt (a server may offer 3 tools and 10 KB); the first ones it listed are offered",
    )
    // One oversized tool goes on its own; the next still fits.
    expect(b!.kept.map((t) => t.name)).toEqual(['x', 'y'])
    expect(b!.note).toMatch(/^1 of its 3 tools left out .*\(a tool may take 2 KB\)/)
    expect(c!.kept).toHaveLength(0)
    expect(c!.note).toMatch(/^10 of its 10 tools left out .*a task may offer 5 MCP tools and 98 KB in all/)
    expect(capTools([{ tools: [tool('a')] }], caps)[0]).toEqual({ kept: [tool('a')], note: '' })
  })
})
