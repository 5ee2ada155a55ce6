import { EyeOff } from 'lucide-react'
import { useState } from 'react'
import { errorMessage } from '../../app/queries'
import { ConfirmDialog, IconButton, toast } from '../../ui'
import { useExcludeRalph } from './queries'

/**
 * The offer in the header's git chip while `git status` lists Ralph's own files: add `.ralph/` to the repository's
 * info/exclude, asked first and said exactly (DESIGN.md §5: Ralph writes the user's .git only when asked).
 */
export function HideRalph({ projectId, count }: { projectId: number; count: number }) {
  const [open, setOpen] = useState(false)
  const exclude = useExcludeRalph(projectId)
  return (
    <>
      <IconButton
        label="Hide .ralph/ from git status"
        icon={<EyeOff size={13} aria-hidden />}
        size="sm"
        className="user-git-hide"
        onClick={() => setOpen(true)}
      />
      <ConfirmDialog
        open={open}
        onOpenChange={setOpen}
        tone="primary"
        title="Hide .ralph/ from git status?"
        description={
          <>
            Git lists {count === 1 ? '1 file' : `${count} files`} of Ralph’s own (its .ralph/ folder) as
            untracked in your repository. Ralph can add a line for this project’s <code>.ralph/</code> to your
            repository’s <code>.git/info/exclude</code>: a file only your copy of the repository reads, so
            nothing is committed or shared, and <code>git add .</code> leaves Ralph’s files out. Your
            .gitignore stays as it is. To undo, delete that line from .git/info/exclude.
          </>
        }
        confirmLabel="Add to .git/info/exclude"
        onConfirm={() =>
          exclude.mutateAsync(undefined, {
            onSuccess: (done) => {
              setOpen(false)
              toast.success(done.added ? 'Ralph’s files are hidden from git status' : 'Already hidden', {
                description: `${done.line} is in ${done.file}.`,
              })
            },
            onError: (err) => toast.error(errorMessage(err)),
          })
        }
      />
    </>
  )
}
