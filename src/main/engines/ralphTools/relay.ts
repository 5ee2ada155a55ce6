// The stdio command an engine starts for Ralph's tools: a few lines of plain CommonJS (node built-ins only, so it
// runs from the session folder whatever the app is packed in) that pipe the engine's stdin and stdout to the Unix
// socket where Ralph's own process serves MCP.

/** Where the relay and the socket live in the session folder (short names: socket paths are limited). */
export const RELAY_FILE = 'rt-relay.cjs'
export const SOCKET_FILE = 'rt.sock'

/**
 * The longest socket path the platform takes, in bytes: `sun_path` is 108 bytes on Linux and 104 on macOS and
 * the BSDs, the last one for the terminating NUL. Node does not refuse a longer path: it silently cuts it, so the
 * socket would appear under another name (and be left behind). Hence the check before listening.
 */
export function socketPathLimit(platform: NodeJS.Platform = process.platform): number {
  return platform === 'linux' ? 107 : 103
}

/** Why a socket cannot be made at this path, or null when it can. */
export function socketPathProblem(path: string, platform: NodeJS.Platform = process.platform): string | null {
  const bytes = Buffer.byteLength(path)
  const limit = socketPathLimit(platform)
  if (bytes <= limit) return null
  return (
    `Ralph's tools cannot be served from ${path}: a Unix socket path may be at most ${limit} bytes here and this ` +
    `one is ${bytes}. Use a shorter session folder (e.g. under /tmp).`
  )
}

/**
 * The command that starts the relay: `node <relay> <socket>`. The default program is Ralph's own binary, which under
 * Electron is the app: ELECTRON_RUN_AS_NODE=1 makes it run the script as plain Node.
 */
export function relayCommand(opts: {
  relay: string
  socket: string
  nodePath?: string
  execPath?: string
  electron?: boolean
}): { command: string; args: string[]; env: Record<string, string> } {
  const execPath = opts.execPath ?? process.execPath
  const command = opts.nodePath ?? execPath
  const electron = (opts.electron ?? process.versions.electron !== undefined) && command === execPath
  return { command, args: [opts.relay, opts.socket], env: electron ? { ELECTRON_RUN_AS_NODE: '1' } : {} }
}

/**
 * The relay's source. Its one argument is the socket's path. It ends when either side does: the engine closing
 * stdin half-closes the socket (Ralph then closes the connection); Ralph closing the connection ends the relay
 * once what it sent has been written out. A socket it cannot reach is one line on stderr and exit code 1.
 */
export const RELAY_SOURCE = `'use strict'
// Ralph Studio: relays an engine's MCP stdio to Ralph's tools server (written for this session only).
const net = require('node:net')
const path = process.argv[2]
const socket = net.createConnection(path)
socket.on('connect', () => {
  process.stdin.pipe(socket)
  socket.pipe(process.stdout)
})
socket.on('error', (err) => {
  process.stderr.write('ralph tools relay: cannot reach Ralph at ' + path + ': ' + err.message + '\\n')
  process.exit(1)
})
socket.on('close', () => process.stdout.write('', () => process.exit(0)))
process.stdin.on('error', () => socket.end())
process.stdout.on('error', () => process.exit(0))
`
