import { createReadStream, existsSync, statSync } from 'node:fs'
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
  } catch {
    decoded = '/'
  }
  const candidate = normalize(join(root, decoded))
  if (candidate.startsWith(root + sep) && existsSync(candidate) && statSync(candidate).isFile())
    return candidate
  // Client-side routes (and everything unknown) get the app shell.
  return join(root, 'index.html')
}

export function sendFile(res: ServerResponse, file: string, headers: Record<string, string>): void {
  if (!existsSync(file)) {
    res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', ...headers })
    res.end('The renderer is not built. Run `npm run web` (it builds it) or `npm run build`.\n')
    return
  }
  const isHtml = file.endsWith('.html')
  res.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    // Hashed assets never change; the shell must always be fresh.
    'cache-control': isHtml ? 'no-store' : 'public, max-age=31536000, immutable',
    ...headers,
  })
  createReadStream(file).pipe(res)
}
