// Ask mode through the contract on a real core: the project's MCP servers start for the answer and only their
// read-only tools are offered (issue 27).
import { describe, expect, it } from 'vitest'
import type { ChatMessageDto } from '../../../src/shared/api/chat'
import { useChatCore } from '../../helpers/chatCore'
import { approveWithApi } from '../../helpers/mcpApproval'
import { say, tools } from '../loop/harness'
import { everythingServer, writeMcpJson } from './fixtures'

describe('Ask mode with MCP servers', () => {
  const chat = useChatCore({ fallback: null })
  const { call } = chat

  it('offers the read-only MCP tools next to read_file, list_files and grep, and answers with what they said', async () => {
    writeMcpJson(chat.dir, { everything: everythingServer })
    await approveWithApi(call, chat.projectId)
    chat.llm.requests.length = 0
    chat.llm.enqueue(
      tools(['mcp__everything__echo', { message: 'menu from MCP' }]),
      say('The server says: menu from MCP.'),
    )
    const answered = new Promise<void>((resolve) => {
      const off = chat.core.events.subscribe((e) => {
        if (e.name === 'chat.changed' && chat.llm.requests.length >= 2) {
          off()
          resolve()
        }
      })
    })
    await call('chat.send', { projectId: chat.projectId, mode: 'ask', text: 'What does the server say?' })
    await answered
    await expect
      .poll(async () => {
        const h = await call<{ messages: ChatMessageDto[] }>('chat.history', { projectId: chat.projectId })
        return h.messages[0]?.text
      })
      .toBe('The server says: menu from MCP.')
    type Request = {
      messages: { role: string; content: unknown }[]
      tools?: { function: { name: string } }[]
    }
    const [first, second] = chat.llm.requests.map((r) => r.body as Request)
    const offered = first!.tools!.map((t) => t.function.name)
    expect(offered).toEqual(
      expect.arrayContaining(['read_file', 'list_files', 'grep', 'mcp__everything__echo']),
    )
    expect(offered).not.toContain('mcp__everything__toggle-simulated-logging')
    expect(offered).not.toContain('write_file')
    expect(JSON.stringify(second!.messages.filter((m) => m.role === 'tool'))).toContain('menu from MCP')
  }, 90_000)
})
