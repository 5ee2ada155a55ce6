import type { Writable } from 'node:stream'
import { sandboxSupport } from '../sandbox'

/** Commands that run the model (`run`, `build`) say first when its commands cannot be sandboxed here. */
export async function warnIfUnsandboxed(stderr: Writable): Promise<void> {
  const sandbox = await sandboxSupport()
  if (sandbox.kind !== 'none') return
  stderr.write(
    `ralph: the model's commands are NOT sandboxed on this machine (${sandbox.reason}); they run only if you ` +
      'allowed it for this project (ralph sandbox allow).\n',
  )
}
