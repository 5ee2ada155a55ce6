import type { Output } from '../../shared/api/contract'

/** A file's content at a snapshot as it crosses a boundary (API, `ralph snapshot show --json`): text or base64. */
export function encodeShown(shown: {
  tag: string
  path: string
  size: number
  binary: boolean
  content: Buffer
}): Output<'snapshots.show'> {
  const encoding = shown.binary ? 'base64' : 'utf8'
  return {
    tag: shown.tag,
    path: shown.path,
    size: shown.size,
    binary: shown.binary,
    encoding,
    content: shown.content.toString(encoding),
  }
}
