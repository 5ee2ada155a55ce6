import { expect, it } from 'vitest'
import { containerSpec, WORKER_LABEL } from './dockerSpec'

it("a job's limits become the container's HostConfig, always labelled as a worker, without a TTY", () => {
  const spec = containerSpec({
    image: 'ralph-worker:node20',
    command: ['ralph', 'worker'],
    env: { OPENAI_API_KEY: 'k' },
    limits: { cpus: 1.5, memoryBytes: 512 * 1024 ** 2, pids: 128, wallTimeMs: 1000 },
    network: 'host',
    labels: { 'dev.ralph-studio.job': 'j1' },
  })
  expect(spec).toMatchObject({
    Image: 'ralph-worker:node20',
    Cmd: ['ralph', 'worker'],
    Env: ['OPENAI_API_KEY=k'],
    Tty: false,
    Labels: { [WORKER_LABEL]: '1', 'dev.ralph-studio.job': 'j1' },
    HostConfig: {
      NanoCpus: 1_500_000_000,
      Memory: 512 * 1024 ** 2,
      MemorySwap: 512 * 1024 ** 2,
      PidsLimit: 128,
      NetworkMode: 'host',
      AutoRemove: false,
    },
  })
  expect(containerSpec({ image: 'i', command: [], limits: { wallTimeMs: 1 } }).HostConfig).toEqual({
    AutoRemove: false,
  })
})
