// TypeScript's compiler API, loaded on its first use. Imported statically, its 9 MB CommonJS file cost every CLI
// command about 0.5 s at start (Node detects the file's format and scans it for exports before anything runs); a
// plain require when a plan or a source file is first parsed costs about 0.15 s, and only for commands that parse.
import { createRequire } from 'node:module'
import type TS from 'typescript'

let loaded: typeof TS | null = null

function load(): typeof TS {
  loaded ??= createRequire(import.meta.url)('typescript') as typeof TS
  return loaded
}

/** The `typescript` module's namespace, read from the module once something in it is first used. */
export const ts: typeof TS = new Proxy({} as typeof TS, {
  get: (_target, key) => Reflect.get(load(), key),
})
