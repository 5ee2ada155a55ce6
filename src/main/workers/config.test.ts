import { describe, expect, it } from 'vitest'
import { containerLimits, defaultWorkersConfig, parseWorkersConfig } from './config'

const parse = (workers: unknown) => parseWorkersConfig(JSON.stringify({ workers }), '/p/.ralph/config.json')

describe('workers config', () => {
  it('defaults to this machine, fills the docker limits, and turns them into container limits', () => {
    expect(parseWorkersConfig('{}', 'f')).toEqual(defaultWorkersConfig)
    expect(defaultWorkersConfig.backend).toBe('local')
    const docker = parse({ backend: 'docker', image: 'localhost/w:1', network: 'host', memoryMb: 512 })
    expect(docker).toMatchObject({ backend: 'docker', image: 'localhost/w:1', network: 'host', cpus: 2 })
    expect(containerLimits({ ...docker, timeoutMinutes: 1.5 })).toEqual({
      cpus: 2,
      memoryBytes: 512 * 1024 * 1024,
      pids: 1024,
      wallTimeMs: 90_000,
    })
  })

  it('names the wrong field and what is expected', () => {
    expect(() => parse({ backend: 'ssh' })).toThrow(
      /"workers.backend" in \/p\/.ralph\/config.json is not valid .*Expected "workers": \{ "backend": "local" \| "docker"/,
    )
    expect(() => parse({ backend: 'docker', memoryMb: 1 })).toThrow(/"workers.memoryMb"/)
    expect(() => parse({ backend: 'docker', imag: 'x' })).toThrow(
      /"workers" in .* is not valid \(Unrecognized key/,
    )
    expect(() => parseWorkersConfig('{', 'f')).toThrow(/f is not valid JSON/)
  })
})
