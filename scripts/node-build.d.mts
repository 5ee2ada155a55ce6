export const outDir: string
export function nodeBuildIsStale(): boolean
export function buildNode(options?: { quiet?: boolean }): Promise<void>
export function ensureNodeBuilt(options?: { quiet?: boolean; who?: string }): Promise<boolean>
