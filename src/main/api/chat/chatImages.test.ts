import { describe, expect, it } from 'vitest'
import { makeCore } from '../../../../tests/helpers/core'
import { solidPng } from '../../../../tests/helpers/png'
import { makeTempDir } from '../../../../tests/helpers/tempDir'

describe('chat.send with images', () => {
  it('Ask mode refuses images, and a file that is not an image is refused by its bytes, recording nothing', async () => {
    const env = makeCore()
    const project = makeTempDir('ralph-chat-images-')
    try {
      const opened = await env.core.dispatch('projects.open', { path: project.path })
      if (!opened.ok) throw new Error(JSON.stringify(opened))
      const projectId = (opened.value as { id: number }).id
      const png = {
        name: 'a.png',
        mediaType: 'image/png',
        base64: Buffer.from(solidPng()).toString('base64'),
      }
      const asked = await env.core.dispatch('chat.send', {
        projectId,
        mode: 'ask',
        text: 'What is this?',
        attachments: [png],
      })
      expect(asked).toMatchObject({ ok: false, error: { kind: 'invalid-input', message: /Task mode/ } })
      const fake = { ...png, name: 'notes.png', base64: Buffer.from('plain text').toString('base64') }
      const sent = await env.core.dispatch('chat.send', {
        projectId,
        mode: 'task',
        text: 'Do',
        attachments: [fake],
      })
      expect(sent).toMatchObject({
        ok: false,
        error: { kind: 'invalid-input', message: /notes\.png is not a PNG/ },
      })
      const history = await env.core.dispatch('chat.history', { projectId })
      expect(JSON.stringify(history)).not.toContain('What is this?')
    } finally {
      await env.cleanup()
      project.cleanup()
    }
  })
})
