import { afterEach, describe, expect, it } from 'vitest'
import { makeCore } from '../../../tests/helpers/core'
import { solidPng } from '../../../tests/helpers/png'
import { makeTempDir } from '../../../tests/helpers/tempDir'
import { storeAttachments } from '../attachments'

describe('tasks.modelSeesImages', () => {
  let env: ReturnType<typeof makeCore> | undefined
  afterEach(async () => {
    await env?.cleanup()
    env = undefined
  })

  const ask = async (vars: NodeJS.ProcessEnv) => {
    env = makeCore(vars)
    return env.core.dispatch('tasks.modelSeesImages', {})
  }

  it('says a text-only model cannot see images, so the composer can warn before sending', async () => {
    expect(await ask({ RALPH_PROVIDER: 'openai', RALPH_MODEL: 'o3-mini', RALPH_API_KEY: 'k' })).toEqual({
      ok: true,
      value: { model: 'o3-mini', sees: false },
    })
  })

  it('a vision model, an unknown local model and no provider at all are not warned about', async () => {
    expect(await ask({ RALPH_PROVIDER: 'openai', RALPH_MODEL: 'gpt-4o', RALPH_API_KEY: 'k' })).toEqual({
      ok: true,
      value: { model: 'gpt-4o', sees: true },
    })
    await env!.cleanup()
    expect(await ask({ RALPH_PROVIDER: 'ollama', RALPH_MODEL: 'my-local-model' })).toEqual({
      ok: true,
      value: { model: 'my-local-model', sees: true },
    })
    await env!.cleanup()
    expect(await ask({})).toEqual({ ok: true, value: { model: null, sees: true } })
  })
})

describe('tasks.attachments', () => {
  it('lists a task’s images by name, type and size (none for a task without)', async () => {
    const env = makeCore()
    const project = makeTempDir('ralph-attach-api-')
    try {
      const opened = await env.core.dispatch('projects.open', { path: project.path })
      if (!opened.ok) throw new Error(JSON.stringify(opened))
      const projectId = (opened.value as { id: number }).id
      const png = solidPng()
      await storeAttachments(project.path, 2, [{ name: 'Screen Shot.png', data: png }])
      expect(await env.core.dispatch('tasks.attachments', { projectId, task: 2 })).toEqual({
        ok: true,
        value: [{ name: 'Screen-Shot.png', mediaType: 'image/png', bytes: png.length }],
      })
      expect(
        await env.core.dispatch('tasks.attachmentData', { projectId, task: 2, name: 'Screen-Shot.png' }),
      ).toEqual({
        ok: true,
        value: {
          name: 'Screen-Shot.png',
          mediaType: 'image/png',
          base64: Buffer.from(png).toString('base64'),
        },
      })
      expect(
        await env.core.dispatch('tasks.attachmentData', { projectId, task: 2, name: '../secret.png' }),
      ).toMatchObject({ ok: false, error: { kind: 'not-found' } })
      expect(await env.core.dispatch('tasks.attachments', { projectId, task: 1 })).toEqual({
        ok: true,
        value: [],
      })
    } finally {
      await env.cleanup()
      project.cleanup()
    }
  })
})
