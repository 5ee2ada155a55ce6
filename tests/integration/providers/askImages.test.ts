// Ask mode's read_file of an image: the model sees the image (issue 27), through each provider's own format.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { askQuestion } from '../../../src/main/tasks/askQuestion'
import { memoryLogger } from '../../../src/main/workspace/logFile'
import type { WireServer } from '../../fixtures/wire/shared'
import { solidPng } from '../../helpers/png'
import { makeTempDir } from '../../helpers/tempDir'
import { say, tools } from '../loop/harness'
import { visionCase, wireImages } from './wireImages'
import { modelCalls, PROVIDERS } from './wire'

const SHOT = solidPng(3, 1, [10, 20, 30, 255])

describe.each(PROVIDERS.map(visionCase))(
  'Ask mode reads an image through $provider',
  { timeout: 60_000 },
  (c) => {
    let server: WireServer & { baseUrl: string }
    let project: ReturnType<typeof makeTempDir>
    beforeEach(async () => {
      server = await c.start()
      project = makeTempDir('ralph-ask-image-')
      mkdirSync(join(project.path, 'docs'))
      writeFileSync(join(project.path, 'docs/screen.png'), SHOT)
    })
    afterEach(async () => {
      await server.close()
      project.cleanup()
    })

    it('sends the image read_file returned, after the tool result', async () => {
      server.enqueue(tools(['read_file', { path: 'docs/screen.png' }]), say('It is a dark blue strip.'))
      const answer = await askQuestion({
        projectDir: project.path,
        question: 'What does docs/screen.png show?',
        model: { provider: c.provider, model: c.model, baseUrl: c.baseUrl(server), apiKey: c.apiKey },
        signal: new AbortController().signal,
        logger: memoryLogger(),
        onTextDelta: () => {},
      })
      expect(answer.text).toBe('It is a dark blue strip.')
      const calls = modelCalls(server, c)
      expect(calls).toHaveLength(2)
      expect(wireImages(c.provider, calls[0]!.body)).toEqual([])
      expect(wireImages(c.provider, calls[1]!.body)).toEqual([
        { mediaType: c.provider === 'ollama' ? null : 'image/png', base64: SHOT.toString('base64') },
      ])
    })
  },
)
