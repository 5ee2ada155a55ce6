import { readLooseCommit } from './commitObject'
import { readAllRefs } from './refCheck'

/** A snapshot tag, its commit and the commit's message (what `for-each-ref --format=%(contents)` prints). */
export interface TagMessage {
  tag: string
  commit: string
  text: string
}

// Past this many tags one for-each-ref costs less than reading every commit here.
const MAX_IN_PROCESS = 300

/**
 * Every tag with its commit's message, read without starting git (`ralph snapshot list` and `status` then start
 * no git at all for it). Null when any commit is not stored loose (a prune packs them), when a ref is unusual or
 * when there are many: for-each-ref answers then.
 */
export function tagMessagesInProcess(gitDir: string): TagMessage[] | null {
  const refs = readAllRefs(gitDir)
  if (refs === null) return null
  const out: TagMessage[] = []
  for (const [ref, commit] of refs) {
    if (!ref.startsWith('refs/tags/')) continue
    if (out.length >= MAX_IN_PROCESS) return null
    const text = readLooseCommit(gitDir, commit)
    if (text === null) return null
    const blank = text.indexOf('\n\n')
    out.push({ tag: ref.slice('refs/tags/'.length), commit, text: blank === -1 ? '' : text.slice(blank + 2) })
  }
  return out
}
