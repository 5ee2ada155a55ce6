// Builds what the tests start before the suite: the CLI and web host (out/node, which the CLI tests spawn) and the
// renderer (which browser tests serve), each only when its sources changed.
export default async function setup(): Promise<void> {
  const { ensureNodeBuilt } = await import('../scripts/node-build.mjs')
  await ensureNodeBuilt({ quiet: true })
  const { ensureRendererBuilt } = await import('../scripts/renderer-build.mjs')
  ensureRendererBuilt({ quiet: true })
}
