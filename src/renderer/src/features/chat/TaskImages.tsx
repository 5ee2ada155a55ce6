import { useState } from 'react'
import { useCall } from '../../app/queries'
import { Dialog, DialogContent } from '../../ui'
import './composerImages.css'

/** A task's images on its card (kept in `.ralph/attachments/task-N/`): thumbnails; a click opens one large. */
export function TaskImages({ projectId, task }: { projectId: number; task: number }) {
  const list = useCall('tasks.attachments', { projectId, task })
  const [open, setOpen] = useState<string | null>(null)
  if (!list.data?.length) return null
  return (
    <>
      <ul className="task-images" aria-label="Attached images">
        {list.data.map((image) => (
          <li key={image.name}>
            <button
              type="button"
              className="task-image-button"
              aria-label={`Open ${image.name}`}
              title={image.name}
              onClick={() => setOpen(image.name)}
            >
              <TaskImage projectId={projectId} task={task} name={image.name} className="task-image-thumb" />
            </button>
          </li>
        ))}
      </ul>
      <Dialog open={open !== null} onOpenChange={(o) => !o && setOpen(null)}>
        {open !== null ? (
          <DialogContent title={open}>
            <TaskImage projectId={projectId} task={task} name={open} className="task-image-large" />
          </DialogContent>
        ) : null}
      </Dialog>
    </>
  )
}

function TaskImage({
  projectId,
  task,
  name,
  className,
}: {
  projectId: number
  task: number
  name: string
  className: string
}) {
  const data = useCall('tasks.attachmentData', { projectId, task, name }, { staleTime: Infinity })
  if (!data.data) return <span className={className} aria-busy={data.isPending || undefined} />
  return (
    <img className={className} src={`data:${data.data.mediaType};base64,${data.data.base64}`} alt={name} />
  )
}
