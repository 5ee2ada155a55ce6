// Builds the renderer once before the suite, so browser tests serve the current sources.
export default async function setup(): Promise<void> {
  const { ensureRendererBuilt } = await import('../scripts/renderer-build.mjs')
  ensureRendererBuilt({ quiet: true })
}
