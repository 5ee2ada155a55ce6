#!/usr/bin/env node
// The `ralph` CLI launcher: runs the TypeScript sources through tsx, so `npx ralph` works right after npm install.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`ralph: Node.js 20.19 or newer is required (this is ${process.versions.node}).`)
  process.exit(2)
}

const { register } = await import('tsx/esm/api')
register()
const { main } = await import('../src/main/cli/main.ts')

const controller = new AbortController()
let interrupted = false
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    // First Ctrl+C asks the running command to stop cleanly; a second one exits at once.
    if (interrupted) process.exit(130)
    interrupted = true
    controller.abort()
  })
}

const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
})
process.exitCode = interrupted && code === 0 ? 130 : code
