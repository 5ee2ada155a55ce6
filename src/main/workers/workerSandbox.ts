// Where a worker's model commands run (issue #39, DESIGN.md §14): in bubblewrap when the probe finds it working
// (sandboxSupport runs a real bwrap), otherwise the container the worker runs in is the sandbox, said once.
import type { SandboxSupport } from '../sandbox'
import type { WorkerResult } from '../../shared/workerJob'

export type WorkerSandbox =
  | { kind: Exclude<WorkerResult['sandbox'], 'container'> }
  | { kind: 'container'; message: string }

export function workerSandbox(support: SandboxSupport): WorkerSandbox {
  if (support.kind === 'bubblewrap' || support.kind === 'sandbox-exec') return { kind: support.kind }
  return {
    kind: 'container',
    message:
      `The model's commands run without bubblewrap here (${support.reason ?? 'no sandbox'}): the container this ` +
      'worker runs in is their sandbox. Run `ralph worker` only inside a container made for the job.',
  }
}
