import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type WorkerJob } from '../../shared/workerJob'
import { readBundleHeader } from './bundle'
import { modelEndpoint } from './createJob'
import { parseJobText, parseResultText } from './jobFormat'
import { workerSandbox } from './workerSandbox'

const BASE = 'a'.repeat(40)

const job = (): WorkerJob => ({
  ralph: 'worker-job',
  version: 1,
  createdAt: 1,
  project: { name: 'app' },
  base: { commit: BASE, bundle: 'base.bundle' },
  task: {
    number: 3,
    id: 't-1',
    name: 'n',
    message: 'do it',
    context: null,
    criteria: ['AC1 DET: `true` exits 0'],
    feedback: '',
    attempt: 1,
  },
  settings: { maxIterations: 5, engine: null, waitForLimits: true },
  lane: { number: 2, setup: null },
  model: { provider: 'openai', model: 'gpt-4o', baseUrl: null, localContextMax: null },
  fastModel: null,
  mcpServers: [{ name: 'files', origin: 'project', config: { command: 'node', env: { TOKEN: '${GH}' } } }],
})

const text = (value: unknown) => JSON.stringify(value)

describe('job.json', () => {
  it('reads a job as createJob writes it', () => {
    expect(parseJobText(text(job()), 'job.json')).toEqual(job())
    // A job from before the MCP servers travelled has none.
    const { mcpServers: _none, ...older } = job()
    expect(parseJobText(text(older), 'job.json').mcpServers).toEqual([])
  })

  it('refuses another version, another kind and invalid JSON, saying which', () => {
    expect(() => parseJobText(text({ ...job(), version: 2 }), 'job.json')).toThrow(
      'job.json is a worker job of version 2; this Ralph reads version 1',
    )
    expect(() => parseJobText(text({ ...job(), ralph: 'lane' }), 'job.json')).toThrow(
      'is not a Ralph worker job (no "ralph": "worker-job")',
    )
    expect(() => parseJobText('{"ralph": ', 'job.json')).toThrow(/job.json is not valid JSON/)
    expect(() => parseJobText('null', 'job.json')).toThrow(/not a Ralph worker job/)
  })

  it('refuses a key, a nonce or any field it does not know, naming where', () => {
    const withKey = { ...job(), model: { ...job().model, apiKey: 'sk-x' } }
    expect(() => parseJobText(text(withKey), 'job.json')).toThrow(
      /model: unknown field "apiKey" \(a job carries no key, nonce or vault secret/,
    )
    expect(() => parseJobText(text({ ...job(), nonce: 'ABC123' }), 'job.json')).toThrow(
      /unknown field "nonce"/,
    )
    expect(() => parseJobText(text({ ...job(), task: { ...job().task, seal: 'x' } }), 'job.json')).toThrow(
      /task: unknown field "seal"/,
    )
  })

  it('names each wrong field', () => {
    const bad = {
      ...job(),
      base: { commit: 'HEAD', bundle: 'base.bundle' },
      model: { ...job().model, baseUrl: 'file:///etc/passwd' },
      lane: { number: 0, setup: null },
    }
    const message = (() => {
      try {
        parseJobText(text(bad), 'job.json')
      } catch (err) {
        return (err as Error).message
      }
      return ''
    })()
    expect(message).toContain('base.commit: a full commit id (40 hex digits)')
    expect(message).toContain('model.baseUrl: a full http:// or https:// address')
    expect(message).toMatch(/lane\.number: /)
  })

  it('reads result.json with the same rules', () => {
    const result = {
      ralph: 'worker-result',
      version: 1,
      task: 3,
      lane: 2,
      base: BASE,
      status: 'complete',
      reason: null,
      message: 'done',
      pre: 'b'.repeat(40),
      post: 'c'.repeat(40),
      costUsd: 0,
      iterations: 1,
      sandbox: 'container',
      bundle: 'result.bundle',
      transcript: 'transcript.ndjson',
    }
    expect(parseResultText(text(result), 'result.json')).toEqual(result)
    expect(() => parseResultText(text({ ...result, verdict: 'PASS' }), 'result.json')).toThrow(
      /unknown field "verdict"/,
    )
    expect(() => parseResultText(text({ ...result, status: 'verified' }), 'result.json')).toThrow(/status/)
  })
})

describe('modelEndpoint', () => {
  it('leaves the key behind', () => {
    const endpoint = modelEndpoint({
      provider: 'openai',
      model: 'gpt-4o',
      apiKey: 'sk-secret',
      baseUrl: undefined,
    })
    expect(endpoint).toEqual({ provider: 'openai', model: 'gpt-4o', baseUrl: null, localContextMax: null })
    expect(parseJobText(text({ ...job(), model: endpoint }), 'job.json').model).toEqual(endpoint)
    expect(modelEndpoint(null)).toBeNull()
  })
})

describe('a bundle header', () => {
  let dir = ''
  afterEach(() => rmSync(dir, { recursive: true, force: true }))
  const file = (content: string) => {
    dir = mkdtempSync(join(tmpdir(), 'ralph-bundle-header-'))
    const path = join(dir, 'x.bundle')
    writeFileSync(path, content)
    return path
  }

  it('gives its refs and prerequisites', async () => {
    const header = await readBundleHeader(
      file(
        `# v3 git bundle\n@object-format=sha1\n-${BASE} base\n${'b'.repeat(40)} refs/lanes/3/pre\n\nPACK…`,
      ),
      'B',
    )
    expect(header.prerequisites).toEqual([BASE])
    expect([...header.refs]).toEqual([['refs/lanes/3/pre', 'b'.repeat(40)]])
  })

  it('refuses what is not a bundle, saying why', async () => {
    await expect(readBundleHeader(file('PK\u0003\u0004 a zip file'), 'The bundle')).rejects.toThrow(
      'The bundle is not a usable git bundle: its header does not end.',
    )
    await expect(readBundleHeader(file('# v9 git bundle\n\n'), 'The bundle')).rejects.toThrow(
      /does not start with a git bundle signature/,
    )
    await expect(readBundleHeader(file(`# v2 git bundle\n${BASE} HEAD\n\n`), 'The bundle')).rejects.toThrow(
      /a line of its header is not a ref/,
    )
    await expect(readBundleHeader(join(tmpdir(), 'no-such-ralph.bundle'), 'The bundle')).rejects.toThrow(
      /The bundle is missing/,
    )
  })
})

describe('the worker’s sandbox', () => {
  it('is bubblewrap when the probe found it working, else the container, said in words', () => {
    expect(workerSandbox({ kind: 'bubblewrap', binary: '/usr/bin/bwrap', reason: null })).toEqual({
      kind: 'bubblewrap',
    })
    const none = workerSandbox({
      kind: 'none',
      binary: null,
      reason: 'bubblewrap does not work here: No permissions to create new namespace',
    })
    expect(none.kind).toBe('container')
    expect(none.kind === 'container' && none.message).toMatch(
      /without bubblewrap here \(bubblewrap does not work here: No permissions.*\): the container this worker runs in is their sandbox/,
    )
  })
})
