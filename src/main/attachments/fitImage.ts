// What is SENT of an image, fitted to the limits of the provider it goes to (issue 27). The user's own file is kept
// as it was (`.ralph/attachments/task-N/`, the project's files); only the bytes put into a request are scaled down.
//
// The fitted bytes are cached in memory, keyed by the image's content hash and the limits: every iteration of a
// task (and its verification) sends the same images, and a 12-megapixel PNG takes ~0.1–0.3 s to scale. Not on disk:
// a derived file under `.ralph/attachments/` would enter the task's snapshots and the user's project, for work
// that is cheap to redo once per process.
import { createHash } from 'node:crypto'
import type SharpModule from 'sharp'
import { AppError } from '../../shared/errors'
import type { ImageAttachment, ImageMediaType } from './index'

export interface ImageLimits {
  /** Longest edge, in pixels. */
  maxEdge: number
  /** Width × height. */
  maxPixels: number
  /** Shortest edge (OpenAI's high detail), when the provider scales to one. */
  maxShortEdge?: number
  /** Bytes of one image before base64 (which adds a third). */
  maxBytes: number
  /** Formats sent as they are; any other becomes PNG (a GIF: its first frame). */
  formats: readonly ImageMediaType[]
}

/** 5 MB of base64 (Anthropic's hard limit per image, the strictest) holds 3.75 MB of image. */
const MAX_SENT_BYTES = 3.75 * 1024 * 1024

/**
 * Per provider. Anthropic: 1568 px long edge and ~1.15 MP is the recommended size (larger is scaled down on their
 * side, adding latency and no detail; the hard cap is 8000 px). OpenAI: high detail fits the image in 2048×2048,
 * then its short side to 768 px; pixels beyond that are never seen. Ollama: its vision models' encoders work at
 * 336–1120 px, and llama.cpp reads PNG and JPEG only. OpenRouter and OpenAI-compatible servers may route to any of
 * these (Gemini reads no GIF), so they get the strictest: Anthropic's size, PNG and JPEG.
 */
export const IMAGE_LIMITS = {
  anthropic: {
    maxEdge: 1568,
    maxPixels: 1_150_000,
    maxBytes: MAX_SENT_BYTES,
    formats: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'],
  },
  openai: {
    maxEdge: 2048,
    maxPixels: 2048 * 768,
    maxShortEdge: 768,
    maxBytes: MAX_SENT_BYTES,
    // GIFs only when not animated: a GIF is sent as its first frame, as PNG.
    formats: ['image/png', 'image/jpeg', 'image/webp'],
  },
  ollama: {
    maxEdge: 1568,
    maxPixels: 1_150_000,
    maxBytes: MAX_SENT_BYTES,
    formats: ['image/png', 'image/jpeg'],
  },
  any: {
    maxEdge: 1568,
    maxPixels: 1_150_000,
    maxBytes: MAX_SENT_BYTES,
    formats: ['image/png', 'image/jpeg'],
  },
} as const satisfies Record<string, ImageLimits>

/** The limits of a provider; unknown ones (and no model) get the limits every provider accepts. */
export function limitsFor(provider: string | null | undefined): ImageLimits {
  if (provider === 'anthropic' || provider === 'openai' || provider === 'ollama')
    return IMAGE_LIMITS[provider]
  return IMAGE_LIMITS.any
}

/** The largest size within the limits, keeping the aspect ratio; never larger than the image. */
export function fittedSize(
  width: number,
  height: number,
  limits: ImageLimits,
): { width: number; height: number } {
  let scale = Math.min(
    1,
    limits.maxEdge / Math.max(width, height),
    Math.sqrt(limits.maxPixels / (width * height)),
  )
  if (limits.maxShortEdge) scale = Math.min(scale, limits.maxShortEdge / Math.min(width, height))
  if (scale >= 1) return { width, height }
  return { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) }
}

/** sharp (libvips), loaded on first use: a CLI command that sends no image does not pay its start-up. */
let sharpLoaded: Promise<typeof SharpModule> | null = null
const sharp = () => (sharpLoaded ??= import('sharp').then((m) => m.default))

/**
 * The most pixels an image may have: 8192×8192 (67 MP). Every provider scales what it is sent to at most 8000 px a
 * side (Anthropic; OpenAI and Gemini far less), and a phone's 48 MP photo fits; a 16000×16000 image (1 MB of PNG)
 * would take 1 GB to decode, so it is refused by its header before any pixel is decoded.
 */
export const MAX_INPUT_PIXELS = 8192 * 8192

/**
 * Decoding runs one image at a time, whoever asks (four attached at once, a task's images fitted for a request):
 * memory then holds one decoded image, not all of them.
 */
let decoding: Promise<unknown> = Promise.resolve()
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const run = decoding.then(work, work)
  // The queue only orders the work: each caller gets its own result or error from `run`.
  decoding = run.then(
    () => undefined,
    (err: unknown) => err,
  )
  return run
}

const tooManyPixels = (name: string, width: number, height: number) =>
  new AppError(
    'invalid-input',
    `${name} is ${width}×${height} pixels (${Math.round((width * height) / 1e6)} megapixels); an attached image may ` +
      `have at most ${Math.round(MAX_INPUT_PIXELS / 1e6)} megapixels (8192×8192), more than any model is sent. ` +
      'Scale it down (or take a screenshot of the part that matters) and attach that.',
  )

/** Thrown by decode() before any pixel is decoded: cannotRead() names the image. */
class PixelLimit extends Error {
  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    super('too many pixels')
  }
}

interface Decoded {
  width: number
  height: number
  animated: boolean
}

/** Reads the image's header; with `full`, the whole image: a truncated or corrupt file is an error then. */
async function decode(data: Uint8Array, full: boolean): Promise<Decoded> {
  const load = await sharp()
  // The header alone (no pixel decoded), so the size can be named; decoding is then held to the limit.
  const meta = await load(data, { failOn: 'error', limitInputPixels: false }).metadata()
  if ((meta.width ?? 0) * (meta.height ?? 0) > MAX_INPUT_PIXELS)
    throw new PixelLimit(meta.width!, meta.height!)
  if (full)
    await oneAtATime(() => load(data, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS }).stats())
  // Sizes as the image is shown (EXIF orientation applied).
  return {
    width: meta.autoOrient.width,
    height: meta.autoOrient.height,
    animated: (meta.pages ?? 1) > 1,
  }
}

const cannotRead = (name: string, err: unknown) =>
  err instanceof PixelLimit
    ? tooManyPixels(name, err.width, err.height)
    : new AppError(
        'invalid-input',
        `${name} could not be read as an image (${(err as Error).message.split('\n')[0]}): the file is damaged or ` +
          'cut short. Open it in an image viewer, save or export it again, and attach that.',
      )

/** Decodes an image in full; a damaged one is an `invalid-input` error naming it. */
export async function checkDecodes(name: string, data: Uint8Array): Promise<void> {
  try {
    await decode(data, true)
  } catch (err) {
    throw cannotRead(name, err)
  }
}

async function encode(
  data: Uint8Array,
  size: { width: number; height: number },
  mediaType: ImageMediaType,
): Promise<Buffer> {
  const image = (await sharp())(data, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS })
    .autoOrient()
    // The size is computed above (aspect kept, never larger): exactly that, not sharp's own rounding.
    .resize({ ...size, fit: 'fill' })
  if (mediaType === 'image/jpeg')
    return image.flatten({ background: '#ffffff' }).jpeg({ quality: 85 }).toBuffer()
  if (mediaType === 'image/webp') return image.webp({ quality: 85 }).toBuffer()
  return image.png().toBuffer()
}

/** Fits one image (uncached). */
async function fit(image: ImageAttachment, limits: ImageLimits): Promise<ImageAttachment> {
  try {
    return await fitDecodable(image, limits)
  } catch (err) {
    throw cannotRead(image.name, err)
  }
}

async function fitDecodable(image: ImageAttachment, limits: ImageLimits): Promise<ImageAttachment> {
  const decoded = await decode(image.data, false)
  const accepted =
    limits.formats.includes(image.mediaType) && !(image.mediaType === 'image/gif' && decoded.animated)
  let size = fittedSize(decoded.width, decoded.height, limits)
  const resized = size.width !== decoded.width || size.height !== decoded.height
  if (accepted && !resized && image.data.length <= limits.maxBytes) {
    // Sent as it is: decoded in full first, so a damaged one is refused here rather than by the provider.
    await decode(image.data, true)
    return image
  }
  let mediaType: ImageMediaType = accepted && image.mediaType !== 'image/gif' ? image.mediaType : 'image/png'
  let data = await oneAtATime(() => encode(image.data, size, mediaType))
  // Still too large (a photo as PNG): JPEG, then smaller, until it fits.
  for (let i = 0; data.length > limits.maxBytes && i < 6; i++) {
    if (mediaType === 'image/jpeg' || !limits.formats.includes('image/jpeg'))
      size = {
        width: Math.max(1, Math.floor(size.width * 0.75)),
        height: Math.max(1, Math.floor(size.height * 0.75)),
      }
    if (limits.formats.includes('image/jpeg')) mediaType = 'image/jpeg'
    data = await oneAtATime(() => encode(image.data, size, mediaType))
  }
  return { name: image.name, mediaType, data: new Uint8Array(data) }
}

/** The fitted images kept (bytes), oldest dropped first past this. */
const CACHE_MAX_BYTES = 64 * 1024 * 1024
const cache = new Map<string, Promise<ImageAttachment>>()
const cachedBytes = new Map<string, number>()

function remember(key: string, fitted: ImageAttachment): void {
  cachedBytes.set(key, fitted.data.length)
  let total = [...cachedBytes.values()].reduce((a, b) => a + b, 0)
  for (const old of cachedBytes.keys()) {
    if (total <= CACHE_MAX_BYTES || old === key) break
    total -= cachedBytes.get(old) ?? 0
    cachedBytes.delete(old)
    cache.delete(old)
  }
}

/**
 * The image as it is sent within the limits: the same bytes when it already fits (format, size and bytes), else
 * scaled down (never up, aspect kept, EXIF orientation applied, metadata dropped), in its own format where the
 * provider takes it, else PNG. A damaged image is an `invalid-input` error naming it.
 */
export async function fitImage(image: ImageAttachment, limits: ImageLimits): Promise<ImageAttachment> {
  const hash = createHash('sha256').update(image.data).digest('hex')
  const key = `${hash}:${JSON.stringify(limits)}`
  let pending = cache.get(key)
  if (!pending) {
    pending = fit(image, limits)
    cache.set(key, pending)
    pending.then(
      (fitted) => remember(key, fitted),
      () => cache.delete(key),
    )
  }
  const fitted = await pending
  // The same content under another name (a copy) is sent under its own.
  return fitted.name === image.name ? fitted : { ...fitted, name: image.name }
}
