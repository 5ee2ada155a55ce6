import { expect, it } from 'vitest'
import { JOB_MOUNT, JOB_TAR_KEY, WORKER_LABEL, jobManifest, jobName, secretManifest } from './kubernetesSpec'

const KEY = 'sk-secret-model-key-0123456789'

it('the Job runs once within its deadline, with its limits, and takes the key only by reference to the Secret', () => {
  const job = jobManifest({
    name: 'ralph-job-abc',
    image: 'ralph-worker:node20',
    command: ['ralph', 'worker', '--job', `${JOB_MOUNT}/${JOB_TAR_KEY}`],
    env: { RALPH_PROVIDER: '' },
    secretEnv: { RALPH_API_KEY: KEY },
    jobTar: Buffer.from('tar'),
    limits: { cpus: 1.5, memoryBytes: 512 * 1024 ** 2, wallTimeMs: 90_500 },
    labels: { 'dev.ralph-studio.task': '2' },
  })
  expect(JSON.stringify(job)).not.toContain(KEY)
  expect(job.spec).toMatchObject({
    backoffLimit: 0,
    activeDeadlineSeconds: 91,
    ttlSecondsAfterFinished: 3600,
  })
  const pod = job.spec!.template.spec!
  expect(pod.restartPolicy).toBe('Never')
  expect(pod.automountServiceAccountToken).toBe(false)
  const c = pod.containers[0]!
  expect(c.resources!.limits).toEqual({ cpu: '1500m', memory: String(512 * 1024 ** 2) })
  expect(c.env).toEqual([
    { name: 'RALPH_PROVIDER', value: '' },
    { name: 'RALPH_API_KEY', valueFrom: { secretKeyRef: { name: 'ralph-job-abc', key: 'RALPH_API_KEY' } } },
  ])
  // The Secret's volume shows only the tar file: the key is not a file in the pod.
  expect(pod.volumes![0]).toEqual({
    name: 'job',
    secret: { secretName: 'ralph-job-abc', items: [{ key: JOB_TAR_KEY, path: JOB_TAR_KEY }] },
  })
  expect(c.volumeMounts).toContainEqual({ name: 'job', mountPath: JOB_MOUNT, readOnly: true })
  expect(job.metadata!.labels).toEqual({ 'dev.ralph-studio.task': '2', [WORKER_LABEL]: '1' })
})

it('the Secret carries the key and the tar base64, owned by its Job; a job without limits or input has neither', () => {
  const s = secretManifest(
    { name: 'ralph-job-abc', secretEnv: { RALPH_API_KEY: KEY }, jobTar: Buffer.from([0, 1, 2]) },
    { name: 'ralph-job-abc', uid: 'u-1' },
  )
  expect(s.data).toEqual({ RALPH_API_KEY: Buffer.from(KEY).toString('base64'), [JOB_TAR_KEY]: 'AAEC' })
  expect(s.metadata!.ownerReferences![0]).toMatchObject({ kind: 'Job', name: 'ralph-job-abc', uid: 'u-1' })
  expect(() => secretManifest({ name: 'x', secretEnv: { 'BAD KEY': 'v' } })).toThrow(/cannot be a key/)
  const bare = jobManifest({ name: 'n', image: 'i', command: ['true'], limits: { wallTimeMs: 1 } })
  expect(bare.spec!.template.spec!.containers[0]!.resources).toBeUndefined()
  expect(bare.spec!.template.spec!.volumes).toEqual([{ name: 'scratch', emptyDir: {} }])
  expect(jobName('AB_12-cd9999999999999')).toBe('ralph-job-ab12cd999999')
})
