import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { pngHeaderOfSize, solidPng } from '../../../tests/helpers/png'
import { isAppError } from '../../shared/errors'
import { checkImage, fitImage, fittedSize, IMAGE_LIMITS, limitsFor } from './index'

/** A width×height image of a gradient (not one colour: a real scale, not a trivially small file). */
async function gradient(width: number, height: number, format: 'png' | 'jpeg' | 'gif' | 'webp' = 'png') {
  const raw = Buffer.alloc(width * height * 3)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3
      raw[i] = (x * 255) / width
      raw[i + 1] = (y * 255) / height
      raw[i + 2] = 128
    }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .toFormat(format)
    .toBuffer()
}

const sizeOf = async (data: Uint8Array) => {
  const m = await sharp(data).metadata()
  return { width: m.width, height: m.height, format: m.format }
}

describe('fittedSize', () => {
  it('keeps the aspect ratio within each limit, and never scales up', () => {
    expect(fittedSize(4000, 3000, IMAGE_LIMITS.anthropic)).toEqual({ width: 1238, height: 928 })
    expect(fittedSize(4000, 3000, IMAGE_LIMITS.openai)).toEqual({ width: 1024, height: 768 })
    // A tall screenshot: the long edge decides.
    expect(fittedSize(1000, 4000, IMAGE_LIMITS.anthropic)).toEqual({ width: 392, height: 1568 })
    expect(fittedSize(800, 600, IMAGE_LIMITS.anthropic)).toEqual({ width: 800, height: 600 })
    expect(fittedSize(1, 1, IMAGE_LIMITS.openai)).toEqual({ width: 1, height: 1 })
  })

  it('gives an unknown provider the limits all of them take', () => {
    expect(limitsFor('openrouter')).toBe(IMAGE_LIMITS.any)
    expect(limitsFor(null)).toBe(IMAGE_LIMITS.any)
    expect(limitsFor('anthropic')).toBe(IMAGE_LIMITS.anthropic)
  })
})

describe('fitImage', () => {
  it('scales a 4000×3000 PNG down to the provider limit, as PNG; the same bytes come from the cache', async () => {
    const data = await gradient(4000, 3000)
    const image = { name: 'shot.png', mediaType: 'image/png' as const, data }
    const sent = await fitImage(image, IMAGE_LIMITS.anthropic)
    expect(sent.mediaType).toBe('image/png')
    expect(await sizeOf(sent.data)).toEqual({ width: 1238, height: 928, format: 'png' })
    expect(sent.data.length).toBeLessThanOrEqual(IMAGE_LIMITS.anthropic.maxBytes)
    // Cached: the very same bytes, not scaled again (and named as asked).
    const copy = await fitImage({ ...image, name: 'copy.png' }, IMAGE_LIMITS.anthropic)
    expect(copy.name).toBe('copy.png')
    expect(copy.data).toBe(sent.data)
    expect(await sizeOf((await fitImage(image, IMAGE_LIMITS.openai)).data)).toMatchObject({
      width: 1024,
      height: 768,
    })
  }, 30_000)

  it('passes an image that fits unchanged, and keeps JPEG as JPEG', async () => {
    const small = { name: 'a.png', mediaType: 'image/png' as const, data: solidPng(3, 2) }
    expect(await fitImage(small, IMAGE_LIMITS.anthropic)).toBe(small)
    const jpeg = { name: 'p.jpg', mediaType: 'image/jpeg' as const, data: await gradient(3000, 2000, 'jpeg') }
    const sent = await fitImage(jpeg, IMAGE_LIMITS.anthropic)
    expect(sent.mediaType).toBe('image/jpeg')
    expect(await sizeOf(sent.data)).toMatchObject({ format: 'jpeg', width: 1313, height: 875 })
  }, 30_000)

  it('sends a GIF as PNG where the provider takes no GIF, and a WebP as PNG to Ollama', async () => {
    const gif = { name: 'g.gif', mediaType: 'image/gif' as const, data: await gradient(20, 10, 'gif') }
    expect(await fitImage(gif, IMAGE_LIMITS.anthropic)).toBe(gif)
    const asPng = await fitImage(gif, IMAGE_LIMITS.openai)
    expect(asPng.mediaType).toBe('image/png')
    expect(await sizeOf(asPng.data)).toEqual({ width: 20, height: 10, format: 'png' })
    const webp = { name: 'w.webp', mediaType: 'image/webp' as const, data: await gradient(20, 10, 'webp') }
    expect((await fitImage(webp, IMAGE_LIMITS.ollama)).mediaType).toBe('image/png')
    expect(await fitImage(webp, IMAGE_LIMITS.openai)).toBe(webp)
  })

  it('refuses a damaged image with a clear error, naming it', async () => {
    const whole = await gradient(400, 300)
    const cut = whole.subarray(0, Math.floor(whole.length / 2))
    const err = await checkImage('screen.png', cut).catch((e: unknown) => e as Error)
    expect(isAppError(err, 'invalid-input')).toBe(true)
    expect((err as Error).message).toMatch(
      /^screen\.png could not be read as an image \(.+\): the file is damaged/,
    )
    await expect(
      fitImage({ name: 'x.png', mediaType: 'image/png', data: cut }, IMAGE_LIMITS.any),
    ).rejects.toThrow(/x\.png could not be read as an image/)
    expect((await checkImage('ok.png', whole)).mediaType).toBe('image/png')
  })
})

describe('the pixel limit (issue 34: four 16000×16000 images took the web host to 3.9 GB)', () => {
  it('refuses an image over 8192×8192 pixels by its header, before decoding a pixel, naming its size', async () => {
    const huge = pngHeaderOfSize(16_000, 16_000)
    // Each attempt starts once the one before has been checked: a rejection no handler awaits yet is unhandled.
    for (const attempt of [
      () => checkImage('huge.png', huge),
      () => fitImage({ name: 'huge.png', mediaType: 'image/png', data: huge }, IMAGE_LIMITS.anthropic),
    ]) {
      const err = await attempt().then(
        () => null,
        (e: unknown) => e,
      )
      expect(isAppError(err, 'invalid-input')).toBe(true)
      expect((err as Error).message).toMatch(
        /^huge\.png is 16000×16000 pixels \(256 megapixels\); .* at most 67 megapixels/,
      )
    }
  })
})
