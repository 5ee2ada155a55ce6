// Workers (issue #39, DESIGN.md §18): a lane's work as a job that runs anywhere the CLI runs (`ralph worker`), and
// its result brought back into the project's store for the coordinator's own merge and verification. The backends
// that carry jobs to a Docker engine or a Kubernetes cluster live beside this (one file per backend).
export { jobMcpServers } from './jobMcp'
export { BASE_REF, createJob, modelEndpoint, type CreateJobInput, type CreatedJob } from './createJob'
export { readJob, type ReadJob } from './readJob'
export { packJobTar, unpackJobTar } from './jobArchive'
export { parseJobText, parseResultText } from './jobFormat'
export { refuseSecretsIn } from './jobSecrets'
export { runWorker, workerAppData, type RunWorkerInput, type WorkerStreamEvent } from './runWorker'
export { resultRefs, type WrittenResult } from './writeResult'
export { workerSandbox, type WorkerSandbox } from './workerSandbox'
export { fetchWorkerResult, type FetchResultInput, type FetchedResult } from './result'
export {
  DEFAULT_WORKER_IMAGE,
  defaultWorkersConfig,
  parseWorkersConfig,
  readWorkersConfig,
  workerBackends,
  workersConfigSchema,
  type WorkerBackend,
  type WorkersConfig,
} from './config'
export { laneRunnerFor, type LaneRunner } from './laneRunner'
export { printResultTar, unpackResultTar } from './kubernetesResult'
// The Kubernetes backend (kubernetes.ts, kubernetesClient.ts, kubernetesCheck.ts) is imported directly, not from here:
// @kubernetes/client-node takes over a second to load, which `ralph worker` and the lanes should not pay.
