import { ImagePlus, X } from 'lucide-react'
import { useRef } from 'react'
import { useCall } from '../../app/queries'
import { Button, IconButton } from '../../ui'
import { IMAGE_TYPES, MAX_IMAGES, type PickedImage } from './composerImages'
import './composerImages.css'

/** The composer's "Attach images" button, with the file chooser it opens. */
export function AttachImagesButton({
  count,
  onFiles,
  disabledReason,
}: {
  count: number
  onFiles(files: File[]): void
  disabledReason?: string | null
}) {
  const input = useRef<HTMLInputElement>(null)
  const full = count >= MAX_IMAGES ? `A message can carry at most ${MAX_IMAGES} images.` : null
  return (
    <>
      <Button
        icon={<ImagePlus size={14} aria-hidden />}
        title="PNG, JPEG, WebP or GIF; at most 5 MB each and 8 in all. Paste or drop them here too."
        onClick={() => input.current?.click()}
        disabled={!!(full ?? disabledReason)}
        disabledReason={full ?? disabledReason ?? null}
      >
        Attach images
      </Button>
      <input
        ref={input}
        type="file"
        accept={IMAGE_TYPES.join(',')}
        multiple
        hidden
        data-testid="attach-images-input"
        onChange={(e) => {
          const files = [...(e.target.files ?? [])]
          e.target.value = ''
          if (files.length) onFiles(files)
        }}
      />
    </>
  )
}

/** The images waiting to be sent, each removable; what was wrong with a file; the warning for a blind model. */
export function ComposerImageList({
  images,
  error,
  blindModel,
  onRemove,
}: {
  images: PickedImage[]
  error: string | null
  /** The configured model cannot see images (its name), or null. */
  blindModel: string | null
  onRemove(id: string): void
}) {
  if (!images.length && !error) return null
  return (
    <div className="composer-images">
      {images.length ? (
        <ul className="composer-image-list" aria-label="Images to send">
          {images.map((image) => (
            <li key={image.id} className="composer-image" title={image.name}>
              <img src={image.url} alt={image.name} className="composer-image-thumb" />
              <span className="composer-image-name">{image.name}</span>
              <IconButton
                label={`Remove ${image.name}`}
                icon={<X size={12} />}
                size="sm"
                onClick={() => onRemove(image.id)}
              />
            </li>
          ))}
        </ul>
      ) : null}
      {images.length && blindModel ? (
        <p className="composer-image-warning" role="status" data-testid="composer-images-blind">
          This model cannot see images: Ralph will tell it their names instead ({blindModel}; choose a model
          that sees images in Settings to show them).
        </p>
      ) : null}
      {error ? (
        <p className="field-error" role="alert" data-testid="composer-images-error">
          {error}
        </p>
      ) : null}
    </div>
  )
}

/** The configured model's name when it cannot see images (asked once images are attached), else null. */
export function useBlindModel(asking: boolean): string | null {
  const seen = useCall('tasks.modelSeesImages', {}, { enabled: asking })
  return seen.data && !seen.data.sees ? (seen.data.model ?? 'this model') : null
}
