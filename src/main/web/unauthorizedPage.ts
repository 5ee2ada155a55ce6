import type { IncomingMessage, ServerResponse } from 'node:http'

/**
 * What a browser that comes without the right token reads: most often a tab of a host that was restarted (each
 * start makes a new token), or a bookmark of the address without it. It names no project and loads nothing.
 */
export const UNAUTHORIZED_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Open the web host's current address</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: Canvas; color: CanvasText; }
  main { max-width: 34rem; margin: 2rem; padding: 1.5rem 2rem; border: 1px solid GrayText; border-radius: 10px; }
  h1 { font-size: 1.25rem; margin: 0 0 0.75rem; }
  code { font-size: 0.95em; }
  .muted { color: GrayText; font-size: 0.9rem; }
</style>
</head>
<body>
<main>
<h1>This page needs the web host's current address</h1>
<p>The web host on this port did not recognise this browser's access token. That happens when the host was
restarted: every start makes a new token, and the old address stops working.</p>
<p>Open the new address that the host printed in the terminal where it was started. It ends in
<code>?token=…</code>.</p>
<p class="muted">The address works for as long as that host runs. Access without the token is refused (401).</p>
</main>
</body>
</html>
`

/** A browser navigating (it asks for HTML) gets the readable page; scripts and calls keep the bare answer. */
export function wantsHtml(req: IncomingMessage, pathname: string): boolean {
  if (pathname.startsWith('/api/')) return false
  const accept = req.headers.accept ?? ''
  return req.method === 'GET' && accept.split(',').some((t) => t.trim().startsWith('text/html'))
}

export function sendUnauthorizedPage(res: ServerResponse): void {
  res.writeHead(401, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy':
      "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  })
  res.end(UNAUTHORIZED_HTML)
}
