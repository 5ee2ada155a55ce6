import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isAppError } from '../../shared/errors'
import { memoryLogger } from '../workspace/logFile'
import { makeTempDir } from '../../../tests/helpers/tempDir'
import { pngOfSize, solidPng } from '../../../tests/helpers/png'
import {
  attachmentsDir,
  attachmentsMessage,
  IMAGE_MAX_BYTES,
  listAttachments,
  loadImageFile,
  modelSeesImages,
  readAttachments,
  sniffImageType,
  storeAttachments,
  validateImage,
} from './index'

let dir: ReturnType<typeof makeTempDir>
beforeEach(() => (dir = makeTempDir('ralph-attach-')))
afterEach(() => dir.cleanup())

const errorOf = (f: () => unknown): Error => {
  try {
    f()
  } catch (err) {
    return err as Error
  }
  throw new Error('did not throw')
}

describe('image checks', () => {
  it('tells the four kinds apart by their bytes, not their names', () => {
    expect(sniffImageType(solidPng())).toBe('image/png')
    expect(sniffImageType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]))).toBe('image/jpeg')
    expect(sniffImageType(Buffer.from('GIF89a\x01\x00', 'latin1'))).toBe('image/gif')
    expect(sniffImageType(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1'))).toBe('image/webp')
    expect(sniffImageType(Buffer.from('RIFF\x10\x00\x00\x00WAVEfmt ', 'latin1'))).toBeNull()
    expect(sniffImageType(Buffer.from('hello, not an image'))).toBeNull()
    // A JPEG named .png is stored as what it is.
    expect(validateImage('shot.png', Buffer.from([0xff, 0xd8, 0xff, 0xdb])).mediaType).toBe('image/jpeg')
  })

  it('refuses a text file named .png, saying what was wrong and what to do', () => {
    const err = errorOf(() => validateImage('/tmp/mockup.png', Buffer.from('just some text\n')))
    expect(isAppError(err, 'invalid-input')).toBe(true)
    expect(err.message).toMatch(/^mockup\.png is not a PNG, JPEG, WebP or GIF image/)
    expect(err.message).toMatch(/Save or export it as PNG or JPEG/)
  })

  it('refuses an image over 5 MB, saying its size and the limit', () => {
    expect(validateImage('ok.png', pngOfSize(IMAGE_MAX_BYTES)).data.length).toBe(IMAGE_MAX_BYTES)
    const err = errorOf(() => validateImage('big.png', pngOfSize(6 * 1024 * 1024)))
    expect(isAppError(err, 'invalid-input')).toBe(true)
    expect(err.message).toBe(
      'big.png is 6.0 MB; an attached image may be at most 5.0 MB. Crop or scale it down, or save it as JPEG, and attach it again.',
    )
  })

  it('loads a file the user names, and says when it cannot be read', async () => {
    const path = join(dir.path, 'screen.png')
    writeFileSync(path, solidPng())
    expect((await loadImageFile(path)).mediaType).toBe('image/png')
    await expect(loadImageFile(join(dir.path, 'missing.png'))).rejects.toThrow(
      /Could not read the image .*missing\.png/,
    )
  })
})

describe('the attachments store', () => {
  it('stores a task’s images under .ralph/attachments/task-N/ with safe, distinct names, and reads them back', async () => {
    const png = solidPng()
    const stored = await storeAttachments(dir.path, 3, [
      { name: '../../evil name.png', data: png },
      { name: 'evil name.png', data: png },
      { name: 'photo.png', data: Buffer.from([0xff, 0xd8, 0xff, 0xdb, 1, 2]) },
    ])
    expect(stored.map((s) => s.name)).toEqual(['evil-name.png', 'evil-name-2.png', 'photo.jpg'])
    const folder = attachmentsDir(dir.path, 3)
    expect(folder).toBe(join(dir.path, '.ralph', 'attachments', 'task-3'))
    expect(readFileSync(join(folder, 'evil-name.png')).equals(png)).toBe(true)
    // A file that is not an image (put there by hand) is left out.
    writeFileSync(join(folder, 'notes.txt'), 'hello')
    const logger = memoryLogger()
    expect(await listAttachments(dir.path, 3, logger)).toEqual([
      { name: 'evil-name-2.png', mediaType: 'image/png', bytes: png.length },
      { name: 'evil-name.png', mediaType: 'image/png', bytes: png.length },
      { name: 'photo.jpg', mediaType: 'image/jpeg', bytes: 6 },
    ])
    expect(await readAttachments(dir.path, 4, logger)).toEqual([])
    expect(logger.lines).toEqual([])
  })

  it('stores nothing when one image is bad', async () => {
    await expect(
      storeAttachments(dir.path, 1, [
        { name: 'a.png', data: solidPng() },
        { name: 'b.png', data: Buffer.from('text') },
      ]),
    ).rejects.toThrow(/b\.png is not a PNG/)
    expect(await readAttachments(dir.path, 1, memoryLogger())).toEqual([])
  })
})

describe('vision', () => {
  it('reads the offline catalog: text-only models do not see; unknown models are assumed to', () => {
    expect(modelSeesImages({ provider: 'openai', model: 'o3-mini' })).toBe(false)
    expect(modelSeesImages({ provider: 'openai', model: 'gpt-4o' })).toBe(true)
    expect(modelSeesImages({ provider: 'anthropic', model: 'claude-sonnet-4-5' })).toBe(true)
    expect(modelSeesImages({ provider: 'ollama', model: 'llama3.1' })).toBe(true)
  })

  it('sends image parts to a model that sees, a note to one that does not', () => {
    const images = [{ name: 'a.png', mediaType: 'image/png' as const, data: solidPng() }]
    expect(attachmentsMessage([], true)).toBeNull()
    expect(attachmentsMessage(images, true)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'The user attached 1 image(s) to this task: a.png.' },
        { type: 'image', image: images[0]!.data.toString('base64'), mediaType: 'image/png' },
      ],
    })
    expect(attachmentsMessage(images, false)).toEqual({
      role: 'user',
      content:
        'The user attached 1 image(s): a.png; this model cannot see images, so work from the text of the request.',
    })
  })
})
