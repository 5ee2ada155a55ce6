import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs'
import type { ServerResponse } from 'node:http'
import { extname, join, normalize, sep } from 'node:path'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.map': 'application/json',
}

/** Resolves a URL path inside the built renderer; anything escaping the folder falls back to index.html. */
export function resolveStatic(root: string, pathname: string): string {
  let decoded: string
  try {
    decoded = decodeURIComponent(pathname)
  } catch (err) {
    // A malformed escape names no file: the app shell.
    if (!(err instanceof URIError)) throw err
    decoded = '/'
  }
  const candidate = normalize(join(root, decoded))
  if (candidate.startsWith(root + sep) && existsSync(candidate) && statSync(candidate).isFile())
    return candidate
  // Client-side routes (and everything unknown) get the app shell.
  return join(root, 'index.html')
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** Adds `<meta name content>` tags at the top of <head>, so scripts of this page (and only this page) can read them. */
export function injectMeta(html: string, meta: Record<string, string>): string {
  const tags = Object.entries(meta)
    .map(
      ([name, content]) => `<meta name="${escapeAttribute(name)}" content="${escapeAttribute(content)}" />`,
    )
    .join('')
  const head = /<head[^>]*>/i.exec(html)
  if (!head) return tags + html
  const at = head.index + head[0].length
  return html.slice(0, at) + tags + html.slice(at)
}

/** Serves a file; HTML pages get `meta` injected. A file that vanishes mid-read ends the response, not the host. */
export function sendFile(
  res: ServerResponse,
  file: string,
  headers: Record<string, string>,
  meta: Record<string, string> = {},
): void {
  if (!existsSync(file)) {
    res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', ...headers })
    res.end('The renderer is not built. Run `npm run web` (it builds it) or `npm run build`.\n')
    return
  }
  const isHtml = file.endsWith('.html')
  const page = isHtml ? injectMeta(readFileSync(file, 'utf8'), meta) : null
  res.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    // Hashed assets never change; the shell must always be fresh.
    'cache-control': isHtml ? 'no-store' : 'public, max-age=31536000, immutable',
    ...headers,
  })
  if (page !== null) {
    res.end(page)
    return
  }
  createReadStream(file)
    .on('error', () => res.destroy())
    .pipe(res)
}
