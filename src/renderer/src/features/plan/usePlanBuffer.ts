import { useEffect } from 'react'
import { create } from 'zustand'
import type { PlanFile } from '../../../../shared/api/plan'

/** The version the buffer was loaded from (or last saved as). */
export interface Base {
  text: string
  version: string
}

interface Buffer {
  base: Base | null
  text: string | null
}

/** Unsaved edits per project outlive the Plan tab (switching to the Timeline unmounts it). */
const useBuffers = create<{
  buffers: Record<number, Buffer>
  set(projectId: number, b: Partial<Buffer>): void
}>()((set) => ({
  buffers: {},
  set: (projectId, b) =>
    set((s) => ({
      buffers: {
        ...s.buffers,
        [projectId]: { ...(s.buffers[projectId] ?? { base: null, text: null }), ...b },
      },
    })),
}))

const empty: Buffer = { base: null, text: null }

/**
 * The editor's buffer against the file on disk. A new version on disk is taken at once while the buffer holds no
 * unsaved edits (so the editor follows the loop's writes live); under unsaved edits it becomes a conflict the
 * user settles: reload, keep mine, or look at the difference first.
 */
export function usePlanBuffer(projectId: number, disk: PlanFile | undefined) {
  const { base, text } = useBuffers((s) => s.buffers[projectId] ?? empty)
  const put = useBuffers((s) => s.set)
  const dirty = base !== null && text !== null && text !== base.text
  const conflict = disk !== undefined && base !== null && dirty && disk.version !== base.version

  useEffect(() => {
    if (!disk) return
    if (base === null || (!dirty && disk.version !== base.version)) {
      put(projectId, { base: { text: disk.text, version: disk.version }, text: disk.text })
    }
  }, [disk, base, dirty, put, projectId])

  return {
    base,
    text,
    dirty,
    conflict,
    edit: (value: string) => put(projectId, { text: value }),
    /** After a save: the saved text is the new base. */
    saved: (saved: Base) => put(projectId, { base: saved }),
    reload: () => {
      if (disk) put(projectId, { base: { text: disk.text, version: disk.version }, text: disk.text })
    },
    /** Keep the edits; the next save replaces the version on disk. */
    keepMine: () => {
      if (disk) put(projectId, { base: { text: disk.text, version: disk.version } })
    },
  }
}
