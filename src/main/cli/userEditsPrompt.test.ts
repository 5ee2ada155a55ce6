import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { memoryLogger } from '../workspace/logFile'
import {
  askUserEditsInTerminal,
  onUserEditsFlag,
  readUserEditsAnswer,
  userEditsPrompt,
} from './userEditsPrompt'

const question = {
  type: 'build.user-edits' as const,
  taskId: 't-a',
  name: 'Write a.txt',
  task: 4,
  lane: 2,
  paths: ['a.txt'],
  question: 'You changed a.txt during the build …?',
}

describe('ralph build’s answer to the user’s edits in an apply’s way', () => {
  it('reads --on-user-edits, refusing anything else with the choices', () => {
    expect(onUserEditsFlag({})).toBeUndefined()
    expect(onUserEditsFlag({ 'on-user-edits': 'take-task' })).toBe('take-task')
    expect(() => onUserEditsFlag({ 'on-user-edits': 'keep' })).toThrow(
      /--on-user-edits is one of keep-theirs, take-task, stop; got "keep"/,
    )
  })

  it('reads a terminal’s answer by key, word or name; Enter stops; anything else asks again', () => {
    expect(readUserEditsAnswer('k')).toBe('keep-theirs')
    expect(readUserEditsAnswer(' Keep ')).toBe('keep-theirs')
    expect(readUserEditsAnswer('t')).toBe('take-task')
    expect(readUserEditsAnswer('take-task')).toBe('take-task')
    expect(readUserEditsAnswer('S')).toBe('stop')
    expect(readUserEditsAnswer('')).toBe('stop')
    expect(readUserEditsAnswer('yes')).toBeNull()
    expect(userEditsPrompt(question)).toMatch(/k {2}Keep my edits[\s\S]*t {2}Take[\s\S]*s {2}Stop the build/)
  })

  it('asks again until the answer is one of the three; a closed terminal stops', async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    let shown = ''
    output.on('data', (c: Buffer) => (shown += c.toString()))
    const answer = askUserEditsInTerminal(question, new AbortController().signal, memoryLogger(), {
      input,
      output,
    })
    input.write('maybe\n')
    await expect.poll(() => shown).toContain('Type k, t or s')
    input.write('t\n')
    expect(await answer).toBe('take-task')

    const closed = new PassThrough()
    const asked = askUserEditsInTerminal(question, new AbortController().signal, memoryLogger(), {
      input: closed,
      output: new PassThrough(),
    })
    closed.end()
    expect(await asked).toBe('stop')
  })
})
