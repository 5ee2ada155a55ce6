// The verification judge of a task with images: its call carries them in each service's own format (issue 27).
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { judgeCriterion } from '../../../src/main/verify/judge'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import type { WireServer } from '../../fixtures/wire/shared'
import { solidPng } from '../../helpers/png'
import { visionCase, wireImages } from './wireImages'
import { modelCalls, PROVIDERS } from './wire'

const MOCKUP = solidPng(1, 1, [0, 255, 0, 255])

describe.each(PROVIDERS.map(visionCase))(
  'the judge sees the task’s images through $provider',
  { timeout: 60_000 },
  (c) => {
    let server: WireServer & { baseUrl: string }
    beforeEach(async () => {
      server = await c.start()
    })
    afterEach(async () => {
      await server.close()
    })

    it('sends the attached image with the evidence, and judges', async () => {
      server.enqueue({ kind: 'verdict', answer: 'YES', reason: 'The header matches the mockup.' })
      const result = await judgeCriterion({
        model: { provider: c.provider, model: c.model, baseUrl: c.baseUrl(server), apiKey: c.apiKey },
        ref: 'AC1',
        nonce: 'A1B2C3',
        evidence: 'header.txt now reads "fixed".',
        signal: new AbortController().signal,
        logger: memoryLogger(),
        retry: { maxRetries: 0 },
        images: [{ name: 'mock.png', mediaType: 'image/png', data: MOCKUP }],
      })
      expect(result).toMatchObject({ answer: 'YES', reason: 'The header matches the mockup.' })
      const [call] = modelCalls(server, c)
      expect(wireImages(c.provider, call!.body)).toEqual([
        { mediaType: c.provider === 'ollama' ? null : 'image/png', base64: MOCKUP.toString('base64') },
      ])
    })
  },
)
