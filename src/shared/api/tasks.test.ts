import { describe, expect, it } from 'vitest'
import { chatCalls } from './chat'
import { MAX_TASK_IMAGES, MESSAGE_MAX_CHARS, taskCalls } from './tasks'

// Issue 34: 30 MB reached the model through tasks.start; the CLI took 9 images where the API took 8.
describe('one message and image limit for every host', () => {
  const image = { name: 'a.png', mediaType: 'image/png' as const, base64: 'iVBORw0KGgo=' }

  it('tasks.start refuses a message over the limit with a clear error, and takes one at the limit', () => {
    const start = taskCalls['tasks.start'].input
    const over = start.safeParse({ projectId: 1, message: 'x'.repeat(MESSAGE_MAX_CHARS + 1) })
    expect(over.success).toBe(false)
    expect(over.error?.issues[0]?.message).toBe(
      'A message can be at most 100,000 characters (this one has 100,001). Shorten it, or put the long part in a file of the project and name the file.',
    )
    expect(start.safeParse({ projectId: 1, message: 'x'.repeat(MESSAGE_MAX_CHARS) }).success).toBe(true)
  })

  it('tasks.start and chat.send take at most MAX_TASK_IMAGES images', () => {
    const images = (n: number) => Array.from({ length: n }, () => image)
    expect(MAX_TASK_IMAGES).toBe(8)
    const start = taskCalls['tasks.start'].input
    expect(start.safeParse({ projectId: 1, message: 'm', attachments: images(8) }).success).toBe(true)
    expect(start.safeParse({ projectId: 1, message: 'm', attachments: images(9) }).success).toBe(false)
    const send = chatCalls['chat.send'].input
    expect(send.safeParse({ projectId: 1, mode: 'task', text: 'm', attachments: images(9) }).success).toBe(
      false,
    )
    expect(
      send.safeParse({ projectId: 1, mode: 'task', text: 'x'.repeat(MESSAGE_MAX_CHARS + 1) }).success,
    ).toBe(false)
  })
})
