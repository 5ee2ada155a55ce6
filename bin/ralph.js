#!/usr/bin/env node
// The `ralph` CLI launcher: starts the compiled CLI (out/node/cli.js), building it first when it is missing or
// older than src/. RALPH_FROM_SOURCE=1 is the development path: it runs the TypeScript sources through tsx.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`ralph: Node.js 20.19 or newer is required (this is ${process.versions.node}).`)
  process.exit(2)
}

async function fromSource() {
  const { register } = await import('tsx/esm/api')
  register()
  await import('../src/main/cli/entry.ts')
}

if (process.env.RALPH_FROM_SOURCE === '1') await fromSource()
else {
  const { ensureNodeBuilt } = await import('../scripts/node-build.mjs')
  let built = true
  try {
    await ensureNodeBuilt({ who: 'ralph' })
  } catch (err) {
    // A checkout this user cannot write to (installed by another user): run the sources, slower but correct.
    console.error(
      `ralph: could not build out/node (${err.message.split('\n')[0]}); running from src/ instead.`,
    )
    built = false
  }
  if (built) await import('../out/node/cli.js')
  else await fromSource()
}
