export function rendererIsStale(): boolean
export function ensureRendererBuilt(options?: { quiet?: boolean }): boolean
