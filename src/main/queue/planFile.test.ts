import { describe, expect, it } from 'vitest'
import { parsePlan, serializePlan } from './planFile'
import { applyCommand } from './commands'
import { queueView } from './view'

// Seed 001's example file, byte for byte (its spacing included).
const SEED = `{"t": "spec", "spec": "coverage.md"}
{"t": "task", "id": "t-1a2b", "spec": "coverage.md", "name": "Add parser unit tests", "notes": "Cover edge cases", "accept": "pytest tests/test_parser.py passes", "s": "p"}
{"t": "task", "id": "t-3c4d", "spec": "coverage.md", "name": "Fix tokenizer edge case", "deps": ["t-1a2b"], "accept": "No panic on malformed input", "s": "p"}
{"t": "task", "id": "t-5e6f", "spec": "coverage.md", "name": "Integration tests", "deps": ["t-1a2b", "t-3c4d"], "accept": "All tests pass", "s": "p"}
{"t": "issue", "id": "i-7g8h", "spec": "coverage.md", "desc": "Flaky test in CI"}
`

describe('parsePlan', () => {
  it("reads seed 001's example: spec, three tasks with string criteria, one issue", () => {
    const view = queueView(parsePlan(SEED))
    expect(view.spec).toBe('coverage.md')
    expect(view.tasks.map((t) => t.id)).toEqual(['t-1a2b', 't-3c4d', 't-5e6f'])
    expect(view.tasks[0]!.accept).toEqual([
      { ref: 'AC1', kind: 'LLM', text: 'pytest tests/test_parser.py passes', tagged: false },
    ])
    expect(view.tasks[2]!.blockedBy).toEqual(['t-1a2b', 't-3c4d'])
    expect(view.issues).toEqual([{ id: 'i-7g8h', spec: 'coverage.md', desc: 'Flaky test in CI', line: 5 }])
    expect(view.malformed).toEqual([])
  })

  it('writes an unchanged file back byte for byte', () => {
    expect(serializePlan(parsePlan(SEED))).toBe(SEED)
  })

  it('reports malformed lines with their line numbers and keeps them verbatim through a mutation', () => {
    const text = [
      '{"t":"spec","spec":"a.md"}',
      '{"t":"task","id":"t-0001","spec":"a.md","name":"ok","s":"p"}',
      '{"t":"task","id":"t-0002", BROKEN',
      '[1,2]',
      '{"t":"note","text":"hi"}',
      '{"t":"task","id":"t-0003","spec":"a.md","s":"p"}',
      '{"no":"type"}',
      '',
      '{"t":"issue","id":"i-0001","spec":"a.md","desc":"x"}',
    ].join('\n')
    const state = parsePlan(text)
    const view = queueView(state)
    expect(view.malformed.map((m) => m.line)).toEqual([3, 4, 5, 6, 7])
    expect(view.malformed[0]!.error).toMatch(/not valid JSON/)
    expect(view.malformed[1]!.error).toMatch(/not a JSON object/)
    expect(view.malformed[2]!.error).toMatch(/unknown record type "note"/)
    expect(view.malformed[3]!.error).toMatch(/invalid task record.*name/)
    expect(view.malformed[4]!.error).toMatch(/no "t" field/)
    expect(view.malformed[0]!.text).toBe('{"t":"task","id":"t-0002", BROKEN')

    const out = applyCommand(state, { op: 'task-done', id: 't-0001', doneAt: 'abc' })
    const written = serializePlan(out.state).split('\n')
    expect(written[1]).toContain('"s":"d"')
    expect(written.slice(2, 9)).toEqual(text.split('\n').slice(2, 9))
  })

  it('keeps fields it does not know when it rewrites a record', () => {
    const state = parsePlan(
      '{"t":"spec","spec":"a.md"}\n{"t":"task","id":"t-0001","spec":"a.md","name":"x","s":"p","owner":"kim"}\n',
    )
    const out = applyCommand(state, { op: 'task-done', doneAt: 'abc' })
    expect(JSON.parse(serializePlan(out.state).split('\n')[1]!)).toMatchObject({
      owner: 'kim',
      s: 'd',
      done_at: 'abc',
    })
  })

  it('treats a missing file as no state and CRLF lines as records', () => {
    expect(queueView(parsePlan(null))).toMatchObject({ exists: false, stage: 'PLAN', tasks: [] })
    const view = queueView(
      parsePlan('{"t":"spec","spec":"a.md"}\r\n{"t":"issue","id":"i-0001","spec":"a.md","desc":"x"}\r\n'),
    )
    expect(view.malformed).toEqual([])
    expect(view.stage).toBe('INVESTIGATE')
  })

  it('loads duplicate ids and warns about them', () => {
    const view = queueView(
      parsePlan(
        [
          '{"t":"spec","spec":"a.md"}',
          '{"t":"task","id":"t-0001","spec":"a.md","name":"one","s":"p"}',
          '{"t":"task","id":"t-0001","spec":"a.md","name":"two","s":"p"}',
        ].join('\n'),
      ),
    )
    expect(view.tasks.map((t) => t.name)).toEqual(['one', 'two'])
    expect(view.warnings).toContainEqual({
      line: 3,
      message: expect.stringMatching(/Duplicate id t-0001 \(also on line 2\)/),
    })
  })
})
