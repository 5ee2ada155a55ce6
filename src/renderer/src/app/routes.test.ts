import { describe, expect, it } from 'vitest'
import { parseHash, routeHash, type Route } from './routes'

describe('routes', () => {
  it('parses the three screens and the side panel', () => {
    expect(parseHash('#/projects')).toEqual({ page: 'projects' })
    expect(parseHash('#/settings')).toEqual({ page: 'settings' })
    expect(parseHash('#/project/12')).toEqual({ page: 'project', projectId: 12 })
    expect(parseHash('#/project/12?panel=plan')).toEqual({ page: 'project', projectId: 12, panel: 'plan' })
    expect(parseHash('#/project/3?panel=queue&x=1')).toEqual({
      page: 'project',
      projectId: 3,
      panel: 'queue',
    })
  })

  it('falls back to the project list, or the default panel, for anything it does not know', () => {
    for (const hash of ['', '#', '#/', '#/nope', '#/project', '#/project/abc', '#/project/0', '#/project/-1'])
      expect(parseHash(hash), hash).toEqual({ page: 'projects' })
    expect(parseHash('#/project/4?panel=brainstorm')).toEqual({ page: 'project', projectId: 4 })
  })

  it("parses a project's brainstorm wizard", () => {
    expect(parseHash('#/project/5/brainstorm')).toEqual({ page: 'project', projectId: 5, view: 'brainstorm' })
    expect(routeHash({ page: 'project', projectId: 5, view: 'brainstorm' })).toBe('#/project/5/brainstorm')
    expect(parseHash('#/project/5/nope')).toEqual({ page: 'project', projectId: 5 })
  })

  it('still opens a project from the old #/projects/<id> address', () => {
    expect(parseHash('#/projects/7')).toEqual({ page: 'project', projectId: 7 })
  })

  it('formats what it parses', () => {
    const routes: Route[] = [
      { page: 'projects' },
      { page: 'settings' },
      { page: 'project', projectId: 9 },
      { page: 'project', projectId: 9, panel: 'timeline' },
      { page: 'project', projectId: 9, panel: 'queue' },
      { page: 'project', projectId: 9, view: 'brainstorm' },
    ]
    for (const route of routes) expect(parseHash(routeHash(route))).toEqual(route)
    expect(routeHash({ page: 'project', projectId: 9, panel: 'plan' })).toBe('#/project/9?panel=plan')
  })
})
