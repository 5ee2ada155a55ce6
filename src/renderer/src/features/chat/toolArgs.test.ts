import { describe, expect, it } from 'vitest'
import { countLines, diffOf, fileChange, readArgs } from './toolArgs'
import { familyOf, tokenize } from './highlight'

describe('a tool call’s arguments, read for a person', () => {
  it('reads whole JSON, and the start of arguments the core cut, string by string with real newlines', () => {
    expect(readArgs('{\n  "path": "a.js",\n  "content": "x\\ny"\n}')).toEqual({
      args: { path: 'a.js', content: 'x\ny' },
      cut: false,
    })
    const cut = readArgs(
      '{\n  "path": "src/app.js",\n  "max": 3,\n  "content": "const a = \\"hi\\"\\nconst b',
    )
    expect(cut).toEqual({
      args: { path: 'src/app.js', max: 3, content: 'const a = "hi"\nconst b' },
      cut: true,
    })
    expect(readArgs('not json')).toBeNull()
  })

  it('turns write_file and edit_file into a change, counted "+N −M"', () => {
    const write = fileChange('write_file', readArgs('{"path":"a.js","content":"one\\ntwo\\n"}'))
    expect(write).toEqual({ path: 'a.js', before: null, after: 'one\ntwo\n' })
    expect(diffOf(write!)).toEqual([
      { kind: 'add', text: 'one' },
      { kind: 'add', text: 'two' },
    ])
    const edit = fileChange(
      'edit_file',
      readArgs('{"path":"a.js","old_string":"a\\nb\\nc","new_string":"a\\nB\\nc\\nd"}'),
    )
    const lines = diffOf(edit!)
    expect(lines.map((l) => `${l.kind}:${l.text}`)).toEqual(['same:a', 'del:b', 'add:B', 'same:c', 'add:d'])
    expect(countLines(lines)).toEqual({ added: 2, removed: 1 })
    expect(fileChange('read_file', readArgs('{"path":"a.js"}'))).toBeNull()
    // Arguments cut before their path (the model sent it last): the path the core read from the whole of them.
    expect(fileChange('write_file', readArgs('{"content": "one\\ntw'), 'b.js')).toEqual({
      path: 'b.js',
      before: null,
      after: 'one\ntw',
    })
  })

  it('highlights code by the file’s kind', () => {
    expect(familyOf('src/app.tsx')).toBe('c')
    expect(familyOf('index.html')).toBe('markup')
    expect(familyOf('notes.txt')).toBe('plain')
    const tokens = tokenize('const a = "hi" // say', 'c')
    expect(tokens.filter((t) => t.kind !== 'plain')).toEqual([
      { kind: 'keyword', text: 'const' },
      { kind: 'string', text: '"hi"' },
      { kind: 'comment', text: '// say' },
    ])
    expect(tokens.map((t) => t.text).join('')).toBe('const a = "hi" // say')
    const html = tokenize('<li class="x">Moon</li>', 'markup')
    expect(html.map((t) => t.text).join('')).toBe('<li class="x">Moon</li>')
    expect(html.find((t) => t.kind === 'tag')?.text).toBe('<li')
  })
})
