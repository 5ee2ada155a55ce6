// The scripted model of `npm run bench:parallel`: every chat call waits a fixed latency, then answers what its
// request is — the parse, the iteration that writes the task's file, or a sealed verdict for the nonce the request
// asks for — made from the request itself, so lanes calling at the same time and reruns need no script order.
// Each call is recorded (when, which kind, which task, the verdict's nonce) for the profile and the nonce counts.
import {
  startFakeLlmServer,
  verdictSealOf,
  type FakeLlmServer,
  type RecordedRequest,
  type ScriptedReply,
} from '../tests/fixtures/fakeLlmServer'
import { writeAttempt } from '../tests/integration/build/buildCliFixture'

export type CallKind = 'parse' | 'iteration' | 'verdict'

export interface ModelCall {
  /** ms since the clock's origin (performance.now()) when the request arrived. */
  at: number
  kind: CallKind
  /** `file:word` of the task the request is about, or null when none could be read from it. */
  task: string | null
  nonce: string | null
}

/** The notes of a bench task: what the scripted model reads to know which task a request is for. */
export const taskNotes = (file: string, word: string): string =>
  `Write the word ${word} into ${file} and nothing else.`
/** The model-checked criterion of a bench task. */
export const llmCriterion = (file: string, word: string): string => `LLM: ${file} holds the word ${word}`

const NOTES = /Write the word (\w+) into ([\w./-]+) and nothing else\./
const CRITERION = /([\w./-]+) holds the word (\w+)/

/** The text of a chat request's messages (not its JSON, whose escapes would run into the words). */
function messagesText(body: unknown): string {
  const messages = (body as { messages?: { content?: unknown }[] } | null)?.messages ?? []
  return messages
    .map(({ content }) =>
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content.map((p: { text?: unknown }) => (typeof p?.text === 'string' ? p.text : '')).join('')
          : '',
    )
    .join('\n')
}

export interface ScriptedModel {
  llm: FakeLlmServer
  calls: ModelCall[]
  close(): Promise<void>
}

export async function startScriptedModel(latencyMs: number): Promise<ScriptedModel> {
  const llm = await startFakeLlmServer()
  const calls: ModelCall[] = []
  const answer = (request: RecordedRequest): ScriptedReply => {
    const at = performance.now()
    const text = messagesText(request.body)
    const seal = verdictSealOf(request.body)
    if (seal) {
      const c = CRITERION.exec(text)
      calls.push({ at, kind: 'verdict', task: c ? `${c[1]}:${c[2]}` : null, nonce: seal.nonce })
      return { kind: 'verdict', answer: 'YES', reason: 'The file holds the word.', delayMs: latencyMs }
    }
    const n = NOTES.exec(text)
    const tools = Array.isArray((request.body as { tools?: unknown[] } | null)?.tools)
    const kind: CallKind = tools ? 'iteration' : 'parse'
    calls.push({ at, kind, task: n ? `${n[2]}:${n[1]}` : null, nonce: null })
    if (!n)
      return { kind: 'error', status: 400, body: { error: { message: 'bench: no task in this request' } } }
    const [parse, iteration] = writeAttempt(n[2]!, n[1]!)
    return { ...(tools ? iteration! : parse!), delayMs: latencyMs } as ScriptedReply
  }
  llm.fallback = { kind: 'computed', reply: answer }
  return { llm, calls, close: () => llm.close() }
}
