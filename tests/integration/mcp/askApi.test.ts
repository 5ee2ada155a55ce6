// Ask mode through the contract on a real core: the project's MCP servers start for the answer and only their
// read-only tools are offered (issue 27).
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createCore, type Core } from '../../../src/main/api/core'
import type { ChatMessageDto } from '../../../src/shared/api/chat'
import { startFakeLlmServer, type FakeLlmServer } from '../../fixtures/fakeLlmServer'
import { makeTempDir } from '../../helpers/tempDir'
import { say, tools } from '../loop/harness'
import { everythingServer, writeMcpJson } from './fixtures'

describe('Ask mode with MCP servers', () => {
  let llm: FakeLlmServer
  let home: ReturnType<typeof makeTempDir>
  let work: ReturnType<typeof makeTempDir>
  let core: Core
  let projectId: number
  let dir: string

  async function call<T = unknown>(name: string, input: unknown): Promise<T> {
    const result = await core.dispatch(name, input)
    if (!result.ok) throw new Error(result.error.message)
    return result.value as T
  }

  beforeAll(async () => {
    llm = await startFakeLlmServer()
  })
  afterAll(() => llm.close())
  beforeEach(async () => {
    home = makeTempDir('ralph-home-')
    work = makeTempDir()
    core = createCore({ appDataDir: home.path, env: {}, host: { kind: 'web', openedFrom: 'test' } })
    dir = join(work.path, 'app')
    mkdirSync(dir)
    projectId = (await call<{ id: number }>('projects.open', { path: dir })).id
    await call('settings.setProvider', {
      settings: { provider: 'openai-compatible', model: 'fake-model', baseUrl: llm.baseUrl },
    })
  })
  afterEach(async () => {
    await core.close()
    home.cleanup()
    work.cleanup()
  })

  it('offers the read-only MCP tools next to read_file, list_files and grep, and answers with what they said', async () => {
    writeMcpJson(dir, { everything: everythingServer })
    llm.requests.length = 0
    llm.enqueue(
      tools(['mcp__everything__echo', { message: 'menu from MCP' }]),
      say('The server says: menu from MCP.'),
    )
    const answered = new Promise<void>((resolve) => {
      const off = core.events.subscribe((e) => {
        if (e.name === 'chat.changed' && llm.requests.length >= 2) {
          off()
          resolve()
        }
      })
    })
    await call('chat.send', { projectId, mode: 'ask', text: 'What does the server say?' })
    await answered
    await expect
      .poll(async () => {
        const h = await call<{ messages: ChatMessageDto[] }>('chat.history', { projectId })
        return h.messages[0]?.text
      })
      .toBe('The server says: menu from MCP.')
    type Request = {
      messages: { role: string; content: unknown }[]
      tools?: { function: { name: string } }[]
    }
    const [first, second] = llm.requests.map((r) => r.body as Request)
    const offered = first!.tools!.map((t) => t.function.name)
    expect(offered).toEqual(
      expect.arrayContaining(['read_file', 'list_files', 'grep', 'mcp__everything__echo']),
    )
    expect(offered).not.toContain('mcp__everything__toggle-simulated-logging')
    expect(offered).not.toContain('write_file')
    expect(JSON.stringify(second!.messages.filter((m) => m.role === 'tool'))).toContain('menu from MCP')
  }, 90_000)
})
