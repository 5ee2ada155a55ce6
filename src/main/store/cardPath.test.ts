import { describe, expect, it } from 'vitest'
import { pathOf } from './conversationsRepo'

describe("a tool call's file on the card's compact line", () => {
  it("is Ralph's tools' path, or an engine patch's files", () => {
    expect(pathOf(JSON.stringify({ path: 'src/a.ts', content: 'x' }))).toBe('src/a.ts')
    expect(pathOf(JSON.stringify({ changes: [{ path: 'src/a.ts', kind: 'update' }] }))).toBe('src/a.ts')
    expect(
      pathOf(
        JSON.stringify({
          changes: [
            { path: 'a.ts', kind: 'add' },
            { path: 'b.ts', kind: 'update' },
          ],
        }),
      ),
    ).toBe('a.ts (+1 more)')
    expect(pathOf(JSON.stringify({ command: 'ls' }))).toBeNull()
    expect(pathOf('not json')).toBeNull()
  })
})
