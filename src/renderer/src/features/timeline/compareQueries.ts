import { useCall } from '../../app/queries'
import { WORKING } from './compareRange'

/** How many snapshots mention a tag are read to find the one named exactly so (messages can mention tags too). */
const EXISTS_PAGE = 50

/**
 * Whether the project has a snapshot tagged `tag`, through the core's own list and search (the tag is one of the
 * words it searches), however far back in the history it is. Undefined until known (and when not asked).
 */
export function useTagExists(projectId: number, tag: string, enabled: boolean): boolean | undefined {
  const on = enabled && tag !== WORKING
  const found = useCall('snapshots.list', { projectId, search: tag, limit: EXISTS_PAGE }, { enabled: on })
  // A failed look-up compares as asked: the diff then says what is wrong with the tag.
  if (!on || !found.data) return found.error ? true : undefined
  return found.data.items.some((s) => s.tag === tag)
}
