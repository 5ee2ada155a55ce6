// rules.list / rules.set through a real core (file database, real project folder), as the project page calls them.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openQueueProject, type QueueProject } from '../../helpers/queueProject'

let project: QueueProject | undefined
afterEach(async () => {
  await project?.close()
})

describe('rules.list and rules.set', () => {
  it('lists the rules files and keeps the switch in .ralph/config.json', async () => {
    project = await openQueueProject({ files: { 'AGENTS.md': 'Agents.', 'CLAUDE.md': 'Claude.' } })
    const list = await project.call<{ files: { path: string; enabled: boolean }[] }>('rules.list', {
      projectId: project.projectId,
    })
    expect(list.files.map((f) => [f.path, f.enabled])).toEqual([
      ['AGENTS.md', true],
      ['CLAUDE.md', true],
    ])
    const off = await project.call<{ files: { path: string; enabled: boolean }[] }>('rules.set', {
      projectId: project.projectId,
      path: 'CLAUDE.md',
      enabled: false,
    })
    expect(off.files.find((f) => f.path === 'CLAUDE.md')!.enabled).toBe(false)
    const config = JSON.parse(readFileSync(join(project.dir, '.ralph/config.json'), 'utf8')) as {
      rules: { disabled: string[] }
    }
    expect(config.rules.disabled).toEqual(['CLAUDE.md'])
    await expect(
      project.call('rules.set', { projectId: project.projectId, path: 'NOPE.md', enabled: false }),
    ).rejects.toThrow('NOPE.md is not a rules file of this project.')
  }, 60_000)
})
