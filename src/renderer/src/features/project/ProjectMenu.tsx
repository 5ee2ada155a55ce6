import { Ellipsis, Trash2 } from 'lucide-react'
import { useState } from 'react'
import type { Project } from '../../../../shared/project'
import { errorMessage } from '../../app/queries'
import { navigate } from '../../app/useRoute'
import {
  ConfirmDialog,
  IconButton,
  Menu,
  MenuContent,
  MenuItem,
  MenuTrigger,
  toast,
  useSingleFlight,
} from '../../ui'
import { useForgetProject } from '../projects'

/** The project's less frequent actions. */
export function ProjectMenu({ project }: { project: Project }) {
  const [confirming, setConfirming] = useState(false)
  const forget = useForgetProject()

  // The dialog's Remove clicked twice forgets the project once.
  const remove = useSingleFlight(() =>
    forget.mutateAsync(project.id, {
      onSuccess() {
        navigate({ page: 'projects' })
        toast.success(`Removed ${project.name} from recent projects`, {
          description: 'The folder and its .ralph/ stay as they are.',
        })
      },
      onError: (err) => toast.error(errorMessage(err)),
    }),
  )

  return (
    <>
      <Menu modal={false}>
        <MenuTrigger asChild>
          <IconButton label="Project actions" icon={<Ellipsis size={16} aria-hidden />} />
        </MenuTrigger>
        <MenuContent>
          <MenuItem tone="danger" onSelect={() => setConfirming(true)}>
            <Trash2 size={14} aria-hidden />
            Remove from recent…
          </MenuItem>
        </MenuContent>
      </Menu>
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title={`Remove ${project.name} from recent projects?`}
        description="Ralph forgets it here; the folder, its files and its .ralph/ folder stay as they are. Open it again at any time."
        confirmLabel="Remove"
        onConfirm={() => void remove.run()}
      />
    </>
  )
}
