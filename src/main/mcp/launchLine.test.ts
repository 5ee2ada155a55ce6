import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { launchLine } from './launchLine'

describe('a stdio server launch line', () => {
  it('carries env values under inert names and exports them only in the shell that becomes the server', () => {
    const { line, carriers } = launchLine(
      {
        command: 'sh',
        args: ['-c', 'echo "$GREETING|$QUOTE|${RALPH_MCP_ENV_0-gone}"; pwd'],
        env: { GREETING: 'hi there', QUOTE: `it's "$HOME"` },
      },
      '/tmp',
    )
    // Nothing the loader or a shell reads on the outside, and no value on any command line.
    expect(Object.keys(carriers)).toEqual(['RALPH_MCP_ENV_0', 'RALPH_MCP_ENV_1'])
    expect(line).not.toContain('hi there')
    expect(line).not.toContain('"$HOME"')
    const out = execFileSync('/bin/sh', ['-c', line], {
      env: { PATH: process.env.PATH, ...carriers },
      encoding: 'utf8',
    })
    expect(out).toBe(`hi there|it's "$HOME"|gone\n/tmp\n`)
  })

  it('keeps the sandbox’s folder when given none, and refuses a name that is not a variable', () => {
    expect(launchLine({ command: 'node', args: ['a b.js'] }, null)).toEqual({
      line: `exec 'node' 'a b.js'`,
      carriers: {},
    })
    expect(() => launchLine({ command: 'x', env: { 'A;rm': '1' } }, null)).toThrow(/not a variable name/)
  })
})
