import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { formatVerdictBlock } from '../../../src/main/verify'

/**
 * An OpenAI-compatible verifier model over real HTTP that answers at once with a valid block: it reads the
 * criterion and nonce from the request's system prompt, so parallel criteria may ask in any order (the scripted
 * fake server answers in arrival order). `hold` lets a test decide when each pending request is answered.
 */
export interface InstantModel {
  baseUrl: string
  /** Requests answered or waiting, and the most that were waiting at once. */
  requests: number
  maxInFlight: number
  close(): Promise<void>
}

export interface InstantModelOptions {
  answer?: (ref: string) => 'YES' | 'NO'
  /** Called with the number of requests now waiting; return true to answer all of them. Default: always. */
  release?: (inFlight: number) => boolean
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = ''
    req.on('data', (c: Buffer) => (text += c.toString('utf8')))
    req.on('end', () => resolve(text))
  })
}

function reply(res: ServerResponse, text: string): void {
  const chunk = (delta: unknown, finish: string | null, usage?: unknown) =>
    `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'fake-model', choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) })}\n\n`
  res.writeHead(200, { 'content-type': 'text/event-stream' })
  res.end(
    chunk({ role: 'assistant', content: text }, null) +
      chunk({}, 'stop', { prompt_tokens: 1000, completion_tokens: 30, total_tokens: 1030 }) +
      'data: [DONE]\n\n',
  )
}

export async function startInstantModel(opts: InstantModelOptions = {}): Promise<InstantModel> {
  const waiting: { res: ServerResponse; text: string }[] = []
  const state: InstantModel = { baseUrl: '', requests: 0, maxInFlight: 0, close: async () => {} }
  const server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      state.requests++
      const m = /<<<VERDICT:V1:(AC\d+):NONCE=([0-9A-F]{6})>>>/.exec(raw)
      const text = m ? formatVerdictBlock(m[1]!, m[2]!, opts.answer?.(m[1]!) ?? 'YES', 'ok') : 'no criterion'
      waiting.push({ res, text })
      state.maxInFlight = Math.max(state.maxInFlight, waiting.length)
      if (opts.release && !opts.release(waiting.length)) return
      for (const w of waiting.splice(0)) reply(w.res, w.text)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  state.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return state
}
