import { memoryLogger } from '../workspace/logFile'
import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import {
  canonicalArgs,
  executeReadTool,
  executeTool,
  toolDescriptions,
  toolNames,
  toolSchemas,
} from './index'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { eachProject, makeContext, put } from './testkit'
import type { RunContext } from './types'

let root: string
let ctx: RunContext
eachProject((p) => ({ root, ctx } = p), {
  'a.txt': 'hello\n',
})

describe('executeTool', () => {
  it('refuses unknown tools with a suggestion', async () => {
    const r = await executeTool('list', {}, ctx)
    expect(r).toEqual({
      ok: false,
      output: expect.stringMatching(
        /There is no tool "list"\. Did you mean list_files\? The tools are: read_file/,
      ),
      changedFiles: [],
      completed: false,
    })
  })

  it('explains invalid arguments and how to call the tool', async () => {
    const missing = await executeTool('write_file', { path: 'x', contents: 'y' }, ctx)
    expect(missing.ok).toBe(false)
    expect(missing.output).toContain('- content: missing; this argument is required (string).')
    expect(missing.output).toContain('- "contents" is not an argument of write_file. Did you mean "content"?')
    expect(missing.output).toContain('Call it as write_file { path, content }.')
    const wrongType = await executeTool('read_file', { path: 'a.txt', offset: 'x' }, ctx)
    expect(wrongType.output).toMatch(/offset: .*expected number/)
    expect(wrongType.output).toContain('read_file { path, offset?, limit? }')
    expect((await executeTool('snapshot', { action: 'nuke' }, ctx)).output).toMatch(/action: .*"save"/)
    expect((await executeTool('read_file', [1, 2], ctx)).ok).toBe(false)
  })

  it('accepts JSON-string arguments and nulls for optional arguments', async () => {
    expect((await executeTool('read_file', '{"path":"a.txt"}', ctx)).output).toBe('     1\thello')
    expect((await executeTool('read_file', { path: 'a.txt', offset: null, limit: null }, ctx)).ok).toBe(true)
    expect((await executeTool('list_files', undefined, ctx)).ok).toBe(true)
  })
})

describe('executeReadTool', () => {
  it('reads, lists and greps, and refuses every tool that writes, runs or snapshots', async () => {
    const read = { projectDir: root, signal: new AbortController().signal, logger: memoryLogger() }
    expect((await executeReadTool('read_file', { path: 'a.txt' }, read)).output).toBe('     1\thello')
    expect((await executeReadTool('list_files', {}, read)).output).toContain('a.txt')
    expect((await executeReadTool('grep', { pattern: 'hel+o' }, read)).output).toContain('a.txt:1')
    for (const [name, args] of [
      ['write_file', { path: 'b.txt', content: 'x' }],
      ['edit_file', { path: 'a.txt', old_string: 'hello', new_string: 'bye' }],
      ['run_command', { command: 'touch c.txt' }],
      ['snapshot', { action: 'save' }],
      ['mark_complete', { summary: 'done' }],
    ] as const) {
      const r = await executeReadTool(name, args, read)
      expect(r.ok, name).toBe(false)
      expect(r.output).toContain('The tools are: read_file, list_files, grep.')
    }
    expect(existsSync(join(root, 'b.txt')) || existsSync(join(root, 'c.txt'))).toBe(false)
  })
})

describe('schemas', () => {
  it('cover every tool with descriptions the model can read', () => {
    expect(Object.keys(toolSchemas).sort()).toEqual([...toolNames].sort())
    for (const name of toolNames) {
      expect(toolDescriptions[name].length).toBeGreaterThan(40)
      const json = z.toJSONSchema(toolSchemas[name]) as {
        properties: Record<string, { description?: string }>
      }
      for (const [key, prop] of Object.entries(json.properties)) {
        expect(prop.description, `${name}.${key}`).toBeTruthy()
      }
    }
  })

  it('match DESIGN.md §7 arguments', () => {
    const args = Object.fromEntries(toolNames.map((n) => [n, Object.keys(toolSchemas[n].shape).sort()]))
    expect(args).toEqual({
      read_file: ['limit', 'offset', 'path'],
      write_file: ['content', 'path'],
      edit_file: ['new_string', 'old_string', 'path'],
      list_files: ['depth', 'path'],
      grep: ['path', 'pattern'],
      run_command: ['command', 'timeout_ms'],
      snapshot: ['action', 'message', 'target'],
      plan: ['action'],
      queue: ['accept', 'action', 'deps', 'description', 'from_issue', 'name', 'notes', 'priority'],
      mark_complete: ['evidence', 'summary'],
    })
  })
})

describe('canonicalArgs', () => {
  it('is stable across key order, nulls and path spelling', () => {
    const a = canonicalArgs('read_file', { path: './src//a.ts', limit: 10, offset: null })
    const b = canonicalArgs('read_file', { limit: 10, path: 'src/a.ts' })
    expect(a).toBe(b)
    expect(a).toBe('{"limit":10,"path":"src/a.ts"}')
    expect(canonicalArgs('edit_file', { path: 'a', new_string: 'x', old_string: 'y' })).toBe(
      '{"new_string":"x","old_string":"y","path":"a"}',
    )
  })

  it('handles invalid input and unknown tools without throwing', () => {
    expect(canonicalArgs('nope', { b: 1, a: { d: 2, c: 3 } })).toBe('{"a":{"c":3,"d":2},"b":1}')
    expect(canonicalArgs('read_file', 'not json')).toBe('"not json"')
    expect(canonicalArgs('plan', undefined)).toBe('{}')
  })
})

describe('file system errors', () => {
  it('become error results, not exceptions', async () => {
    put(root, 'file', 'x')
    const r = await executeTool('write_file', { path: 'file/inside.txt', content: 'y' }, ctx)
    expect(r.ok).toBe(false)
    expect(r.output).toMatch(/Could not write file\/inside\.txt/)
    const gone = makeContext(`${root}/missing-project`)
    const g = await executeTool('read_file', { path: 'a.txt' }, gone)
    expect(g).toMatchObject({ ok: false, output: expect.stringMatching(/^read_file failed: ENOENT/) })
  })
})
