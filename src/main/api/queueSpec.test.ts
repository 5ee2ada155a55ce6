import { mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { MutationResult } from '../../shared/queue'
import { openQueueProject, type QueueProject } from '../../../tests/helpers/queueProject'
import { makeTempDir } from '../../../tests/helpers/tempDir'

// The task dialog's spec editor on a real core: a spec the app creates, then a task that belongs to it.
describe('queue.spec / queue.saveSpec', () => {
  let p: QueueProject
  let projectId: number
  const call = <T = unknown>(name: string, input: unknown) => p.call<T>(name, input)

  beforeEach(async () => {
    p = await openQueueProject()
    projectId = p.projectId
  })
  afterEach(() => p.close())

  it('creates a spec file that did not exist, then a task on it; reads it back and edits it', async () => {
    expect(await call('queue.spec', { projectId })).toEqual({ path: null, exists: false, text: null })
    expect(await call('queue.spec', { projectId, path: './specs/menu.md' })).toEqual({
      path: 'specs/menu.md',
      exists: false,
      text: null,
    })
    expect(
      await call('queue.saveSpec', { projectId, path: 'specs/menu.md', text: '# Menu\n\nA price list.' }),
    ).toEqual({ path: 'specs/menu.md', created: true })
    expect(readFileSync(join(p.dir, 'specs', 'menu.md'), 'utf8')).toBe('# Menu\n\nA price list.\n')
    const added = await call<MutationResult>('queue.addTask', {
      projectId,
      name: 'Prices',
      spec: 'specs/menu.md',
    })
    expect(added.state.spec).toBe('specs/menu.md')
    expect(await call('queue.spec', { projectId })).toEqual({
      path: 'specs/menu.md',
      exists: true,
      text: '# Menu\n\nA price list.\n',
    })
    expect(await call('queue.saveSpec', { projectId, path: 'specs/menu.md', text: '# Menu v2\n' })).toEqual({
      path: 'specs/menu.md',
      created: false,
    })
    expect(readFileSync(join(p.dir, 'specs', 'menu.md'), 'utf8')).toBe('# Menu v2\n')
  })

  it('refuses what is not a markdown file inside the project, with the words the field shows', async () => {
    const refused = (path: string) => call('queue.saveSpec', { projectId, path, text: 'x' })
    await expect(refused('specs/menu.txt')).rejects.toMatchObject({
      kind: 'invalid-input',
      message: /markdown/,
    })
    await expect(refused('../outside.md')).rejects.toMatchObject({ message: /leaves the project/ })
    await expect(refused('/etc/spec.md')).rejects.toMatchObject({ message: /inside the project/ })
    await expect(refused('.ralph/spec.md')).rejects.toMatchObject({ message: /belongs to Ralph or to git/ })
    // A symlinked folder that leads out of the project is refused too (the model may have planted it).
    const outside = makeTempDir('ralph-spec-outside-')
    try {
      mkdirSync(join(outside.path, 'x'))
      symlinkSync(join(outside.path, 'x'), join(p.dir, 'linked'))
      await expect(refused('linked/spec.md')).rejects.toMatchObject({ message: /outside the project/ })
    } finally {
      outside.cleanup()
    }
  })
})
