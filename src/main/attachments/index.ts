// Images a task carries (issue 27): kept under `.ralph/attachments/task-N/` inside the project, so the task's
// snapshots hold them and a rollback keeps them; sent with every iteration of that task as image parts, scaled
// to the provider's limits (`fitImage.ts`; the stored file stays as the user gave it).
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'
import type { ModelMessage } from 'ai'
import { AppError } from '../../shared/errors'
import { catalogSeesImages, ollamaModelFacts, type ModelConfig } from '../llm'
import { noteFailure, unlessMissing, type Logger } from '../workspace'
import { checkDecodes, fitImage, limitsFor } from './fitImage'

export { fitImage, fittedSize, IMAGE_LIMITS, limitsFor, type ImageLimits } from './fitImage'

export const IMAGE_MAX_BYTES = 5 * 1024 * 1024

export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif'

export interface ImageAttachment {
  name: string
  mediaType: ImageMediaType
  data: Uint8Array
}

const EXTENSION: Record<ImageMediaType, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/webp': '.webp',
  'image/gif': '.gif',
}

const startsWith = (buf: Uint8Array, bytes: number[], at = 0) =>
  buf.length >= at + bytes.length && bytes.every((b, i) => buf[at + i] === b)

/** The image type by its first bytes (never its name); null when it is none of PNG, JPEG, WebP or GIF. */
export function sniffImageType(buf: Uint8Array): ImageMediaType | null {
  if (startsWith(buf, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png'
  if (startsWith(buf, [0xff, 0xd8, 0xff])) return 'image/jpeg'
  if (startsWith(buf, [0x47, 0x49, 0x46, 0x38]) && (buf[4] === 0x37 || buf[4] === 0x39) && buf[5] === 0x61)
    return 'image/gif'
  if (startsWith(buf, [0x52, 0x49, 0x46, 0x46]) && startsWith(buf, [0x57, 0x45, 0x42, 0x50], 8))
    return 'image/webp'
  return null
}

const formatMb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`

/** Checks one image by its bytes and size; the error says what was wrong and what to do. */
export function validateImage(name: string, data: Uint8Array): ImageAttachment {
  const shown = basename(name) || 'the image'
  const mediaType = sniffImageType(data)
  if (!mediaType) {
    throw new AppError(
      'invalid-input',
      `${shown} is not a PNG, JPEG, WebP or GIF image (its content is not an image of those kinds, whatever its ` +
        'name says). Save or export it as PNG or JPEG and attach that.',
    )
  }
  if (data.length > IMAGE_MAX_BYTES) {
    throw new AppError(
      'invalid-input',
      `${shown} is ${formatMb(data.length)}; an attached image may be at most ${formatMb(IMAGE_MAX_BYTES)}. ` +
        'Crop or scale it down, or save it as JPEG, and attach it again.',
    )
  }
  return { name: shown, mediaType, data }
}

/**
 * Checks one image by its bytes and size, then decodes it in full: a damaged or cut-short file is refused when it
 * is attached, naming it, not when a task sends it.
 */
export async function checkImage(name: string, data: Uint8Array): Promise<ImageAttachment> {
  const image = validateImage(name, data)
  await checkDecodes(image.name, image.data)
  return image
}

/** Reads and checks an image file the user named (`ralph run --image FILE`). */
export async function loadImageFile(path: string): Promise<ImageAttachment> {
  let data: Buffer
  try {
    data = await readFile(path)
  } catch (err) {
    throw new AppError(
      'invalid-input',
      `Could not read the image ${path}: ${(err as Error).message}. Check the path.`,
    )
  }
  return checkImage(path, data)
}

export const attachmentsDir = (projectDir: string, task: number) =>
  join(projectDir, '.ralph', 'attachments', `task-${task}`)

/** A file name that stays inside the folder and ends with the image's own extension. */
function safeName(name: string, mediaType: ImageMediaType, taken: Set<string>): string {
  const ext = EXTENSION[mediaType]
  const stem =
    basename(name, extname(name))
      .replace(/[^\w.-]+/g, '-')
      .replace(/^[.-]+/, '')
      .slice(0, 80) || 'image'
  let candidate = `${stem}${ext}`
  for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${stem}-${n}${ext}`
  taken.add(candidate.toLowerCase())
  return candidate
}

/** Stores a task's images (each checked again); returns them under the names they were stored as. */
export async function storeAttachments(
  projectDir: string,
  task: number,
  images: { name: string; data: Uint8Array }[],
): Promise<ImageAttachment[]> {
  if (images.length === 0) return []
  const checked = images.map((i) => validateImage(i.name, i.data))
  const dir = attachmentsDir(projectDir, task)
  await mkdir(dir, { recursive: true })
  const taken = new Set((await readdir(dir)).map((n) => n.toLowerCase()))
  const stored: ImageAttachment[] = []
  for (const image of checked) {
    const name = safeName(image.name, image.mediaType, taken)
    await writeFile(join(dir, name), image.data)
    stored.push({ ...image, name })
  }
  return stored
}

/**
 * A task's images, in name order; files that are not (or no longer) valid images are left out. With `sendTo` (the
 * model they go to, null for any), each as it is sent: fitted to that provider's limits (`fitImage`).
 */
export async function readAttachments(
  projectDir: string,
  task: number,
  logger: Logger,
  sendTo?: Pick<ModelConfig, 'provider'> | null,
): Promise<ImageAttachment[]> {
  const stored = await readStored(projectDir, task, logger)
  if (sendTo === undefined) return stored
  const limits = limitsFor(sendTo?.provider)
  const sent: ImageAttachment[] = []
  for (const image of stored) {
    try {
      sent.push(await fitImage(image, limits))
    } catch (err) {
      // A file damaged after it was attached (attaching checks it): the task goes on without it, and the log says so.
      noteFailure(logger, `the attached image ${image.name} of task ${task} could not be sent`, err)
    }
  }
  return sent
}

async function readStored(projectDir: string, task: number, logger: Logger): Promise<ImageAttachment[]> {
  const dir = attachmentsDir(projectDir, task)
  const names = await readdir(dir).catch(unlessMissing(logger, 'could not list the task attachments', []))
  const out: ImageAttachment[] = []
  for (const name of [...names].sort()) {
    const data = await readFile(join(dir, name)).catch(
      unlessMissing(logger, 'could not read a task attachment', null),
    )
    const mediaType = data ? sniffImageType(data) : null
    if (data && mediaType && data.length <= IMAGE_MAX_BYTES) out.push({ name, mediaType, data })
  }
  return out
}

/** A task's images without their bytes (for a card or `--json`). */
export async function listAttachments(
  projectDir: string,
  task: number,
  logger: Logger,
): Promise<{ name: string; mediaType: ImageMediaType; bytes: number }[]> {
  return (await readAttachments(projectDir, task, logger)).map((a) => ({
    name: a.name,
    mediaType: a.mediaType,
    bytes: a.data.length,
  }))
}

/** Whether a model can see images (the offline catalog; an unknown model is assumed to see). */
export function modelSeesImages(model: Pick<ModelConfig, 'provider' | 'model'> | null | undefined): boolean {
  return !model || catalogSeesImages(model.model)
}

/**
 * An image part of a user message. Base64, not bytes: every provider package takes it, and Ollama's
 * (ollama-ai-provider-v2) copies the data into its `images` array as it is, where bytes would be sent as an object.
 */
export function imagePart(data: Uint8Array, mediaType: string) {
  return { type: 'image' as const, image: Buffer.from(data).toString('base64'), mediaType }
}

/**
 * Whether a model can see images, asking an Ollama server its model's capabilities (`/api/show`, asked once per
 * model); other providers as `modelSeesImages`. An Ollama server that does not answer leaves the model assumed to
 * see (the task's own calls then say what is wrong).
 */
export async function resolveSeesImages(
  model: Pick<ModelConfig, 'provider' | 'model' | 'baseUrl'> | null | undefined,
  logger: Logger,
): Promise<boolean> {
  if (!model || model.provider !== 'ollama') return modelSeesImages(model)
  try {
    return (await ollamaModelFacts(model.baseUrl, model.model)).vision ?? true
  } catch (err) {
    noteFailure(logger, `whether ${model.model} can see images is unknown (Ollama's /api/show)`, err)
    return true
  }
}

/** What a model that cannot see images is told instead of them. */
export function imagesNote(names: string[]): string {
  return (
    `The user attached ${names.length} image(s): ${names.join(', ')}; this model cannot see images, so work from ` +
    'the text of the request.'
  )
}

/**
 * The user message that carries a task's images (after the iteration's text): image parts for a model that
 * sees, a text note for one that does not. Null without images.
 */
export function attachmentsMessage(images: ImageAttachment[], sees: boolean): ModelMessage | null {
  if (images.length === 0) return null
  const names = images.map((i) => i.name)
  if (!sees) return { role: 'user', content: imagesNote(names) }
  return {
    role: 'user',
    content: [
      {
        type: 'text',
        text: `The user attached ${images.length} image(s) to this task: ${names.join(', ')}.`,
      },
      ...images.map((i) => imagePart(i.data, i.mediaType)),
    ],
  }
}

/**
 * The images tools returned (read_file of a PNG, an MCP tool's image), as a user message after the tool results:
 * every wire format takes images there (chat completions and Ollama take none inside a tool result). A model that
 * cannot see images is told so instead. Null without images. They come fitted to every provider's limits (a tool
 * does not know the model): `fitToolImage`.
 */
export function toolImagesMessage(
  read: { name: string; data: Uint8Array; mediaType: string }[],
  sees: boolean,
): ModelMessage | null {
  if (read.length === 0) return null
  const names = read.map((i) => i.name).join(', ')
  if (!sees)
    return {
      role: 'user',
      content: `The tool(s) returned image(s): ${names}; this model cannot see images, so they are not shown.`,
    }
  const by = read.every((i) => !isMcpImageName(i.name)) ? 'read_file' : 'the tool(s)'
  return {
    role: 'user',
    content: [
      { type: 'text', text: `The image(s) ${by} returned: ${names}.` },
      ...read.map((i) => imagePart(i.data, i.mediaType)),
    ],
  }
}

/** How an MCP tool's image is named to the model: `mcp__server__tool image 1`. */
export const mcpImageName = (tool: string, n: number) => `${tool} image ${n}`
const isMcpImageName = (name: string) => /^mcp__.* image \d+$/.test(name)

/**
 * An image a tool returned (read_file, an MCP tool), fitted to every provider's limits; a damaged one is an
 * `invalid-input` error naming it.
 */
export async function fitToolImage(image: {
  name: string
  data: Uint8Array
  mediaType: ImageMediaType
}): Promise<ImageAttachment> {
  return fitImage(image, limitsFor(null))
}
