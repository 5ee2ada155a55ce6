import { useCallback, useState } from 'react'

/** The image kinds the core takes (it checks the bytes again). */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const
export type ImageType = (typeof IMAGE_TYPES)[number]
export const IMAGE_MAX_BYTES = 5 * 1024 * 1024
export const MAX_IMAGES = 8

/** An image picked in the composer, ready to send (`chat.send`'s attachment) and to show as a thumbnail. */
export interface PickedImage {
  id: string
  name: string
  mediaType: ImageType
  base64: string
  bytes: number
  /** A data URL of the image, for its thumbnail. */
  url: string
}

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`

const isImageType = (type: string): type is ImageType => (IMAGE_TYPES as readonly string[]).includes(type)

/** Why a file cannot be attached (its kind or size), or null. */
export function imageProblem(file: { name: string; type: string; size: number }): string | null {
  const name = file.name || 'The pasted file'
  if (!isImageType(file.type)) return `${name} is not a PNG, JPEG, WebP or GIF image: attach one of those.`
  if (file.size > IMAGE_MAX_BYTES)
    return `${name} is ${mb(file.size)}; an image may be at most 5 MB. Crop or scale it down, or save it as JPEG.`
  return null
}

function toBase64(bytes: Uint8Array): string {
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}

let nextId = 0

/** Reads a checked file into a picked image. A pasted image without a name is named by its kind. */
export async function readImage(file: File): Promise<PickedImage> {
  const mediaType = file.type as ImageType
  const base64 = toBase64(new Uint8Array(await file.arrayBuffer()))
  const name = file.name || `pasted-image.${mediaType.slice('image/'.length).replace('jpeg', 'jpg')}`
  return {
    id: `img-${++nextId}`,
    name,
    mediaType,
    base64,
    bytes: file.size,
    url: `data:${mediaType};base64,${base64}`,
  }
}

/**
 * The composer's images: `add` takes files (picked, pasted or dropped), keeps the ones that fit and says what was
 * wrong with the others in `error`; `clear` after a send.
 */
export function useComposerImages() {
  const [images, setImages] = useState<PickedImage[]>([])
  const [error, setError] = useState<string | null>(null)

  const add = useCallback(async (files: File[], current: number) => {
    const problems: string[] = []
    const fitting: File[] = []
    for (const file of files) {
      const problem = imageProblem(file)
      if (problem) problems.push(problem)
      else if (current + fitting.length >= MAX_IMAGES)
        problems.push(
          `Attach at most ${MAX_IMAGES} images to a message: ${file.name || 'this one'} was left out.`,
        )
      else fitting.push(file)
    }
    const read = await Promise.all(fitting.map(readImage))
    setImages((old) => [...old, ...read].slice(0, MAX_IMAGES))
    setError(problems.length ? problems.join(' ') : null)
  }, [])

  const remove = useCallback((id: string) => {
    setImages((old) => old.filter((i) => i.id !== id))
    setError(null)
  }, [])

  const clear = useCallback(() => {
    setImages([])
    setError(null)
  }, [])

  return { images, error, add: (files: File[]) => add(files, images.length), remove, clear }
}
