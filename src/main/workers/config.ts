// Where a build's lanes run (issue #39): `.ralph/config.json`'s "workers" ({ "backend": "docker", "image": …,
// limits … }), beside "lanes", overridden per build by `ralph build --workers local|docker|kubernetes`. A field that is
// there but wrong is an error naming it: a build silently falling back to this machine would surprise more. The
// schema is shared (src/shared/workersConfig.ts): Settings → Workers checks a value with it before saving.
import { workersConfigSchema, type WorkersConfig } from '../../shared/workersConfig'
import { parseConfigField, readConfigField, type ConfigField } from '../workspace'
import type { ContainerLimits } from './dockerSpec'

export {
  DEFAULT_WORKER_IMAGE,
  defaultWorkersConfig,
  workerBackends,
  workersConfigSchema,
  type WorkerBackend,
  type WorkersConfig,
} from '../../shared/workersConfig'

const EXPECTED =
  'Expected "workers": { "backend": "local" | "docker" | "kubernetes", "image": "ralph-worker:node20", ' +
  '"network": "bridge" | "host", "cpus": 2, "memoryMb": 4096, "pids": 1024, "timeoutMinutes": 120, ' +
  '"dockerHost": "ssh://user@host", "kubernetes": { "context": …, "namespace": … }, "retry": "worker" | "local", ' +
  '"remoteSecrets": ["NAME", …] }.'

export const workersField: ConfigField<WorkersConfig> = {
  key: 'workers',
  schema: workersConfigSchema,
  expected: EXPECTED,
}

/** The project's "workers" settings; a missing file or field means the defaults (this machine). */
export function readWorkersConfig(projectDir: string): Promise<WorkersConfig> {
  return readConfigField(projectDir, workersField)
}

/** The "workers" field of config.json's text (pure; `file` names it in errors). */
export function parseWorkersConfig(raw: string, file: string): WorkersConfig {
  return parseConfigField(raw, file, workersField)
}

/** The container limits of a job from the settings. */
export function containerLimits(config: WorkersConfig): ContainerLimits {
  return {
    cpus: config.cpus,
    memoryBytes: config.memoryMb * 1024 * 1024,
    pids: config.pids,
    wallTimeMs: Math.round(config.timeoutMinutes * 60_000),
  }
}
