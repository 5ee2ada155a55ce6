import { describe, expect, it } from 'vitest'
import { parsePlan } from './parse'

const plan = `import { App, Screen, Content, Section } from 'ralph-plan'

// header comment
export default (
  <App name="Shop" description={'Sells things'}>
    <Screen name="home">
      <Content>
        <Section gumdrop="features" cols={5} span={-1} files={['src/a.tsx', 'src/b.ts']} className={cn('x')}>
          {/* TASK-3 [ADD]: 2 flavors */}
          {/* EXISTING 8 flavors PRESERVED */}
        </Section>
        <Custom intent="banner">Show a banner {'now'}</Custom>
      </Content>
    </Screen>
  </App>
)
`

describe('parsePlan', () => {
  it('builds a typed tree with literal props, flagged expressions and positions', () => {
    const p = parsePlan(plan)
    expect(p.errors).toEqual([])
    expect(p.imports).toEqual(['App', 'Screen', 'Content', 'Section'])
    const app = p.root
    expect(app?.tag).toBe('App')
    expect(app?.pos).toMatchObject({ line: 5, column: 3 })
    expect(app?.props.map((x) => [x.name, x.value])).toEqual([
      ['name', { kind: 'string', value: 'Shop' }],
      ['description', { kind: 'string', value: 'Sells things' }],
    ])
    const section = app?.children[0]?.children[0]?.children[0]
    expect(section?.tag).toBe('Section')
    expect(section?.tagPos).toMatchObject({ line: 8, column: 10 })
    const props = Object.fromEntries(section?.props.map((x) => [x.name, x.value]) ?? [])
    expect(props.cols).toEqual({ kind: 'number', value: 5 })
    expect(props.span).toEqual({ kind: 'number', value: -1 })
    expect(props.files).toEqual({
      kind: 'array',
      items: [
        { kind: 'string', value: 'src/a.tsx' },
        { kind: 'string', value: 'src/b.ts' },
      ],
    })
    expect(props.className).toEqual({ kind: 'expression', text: "cn('x')" })
    expect(section?.comments.map((c) => [c.marker?.kind, c.pos.line, c.pos.column])).toEqual([
      ['ADD', 9, 12],
      ['PRESERVED', 10, 12],
    ])
    const custom = app?.children[0]?.children[0]?.children[1]
    expect(custom?.text).toBe('Show a banner now')
  })

  it('parses the import-less form the same way', () => {
    const p = parsePlan(plan.replace(/^import.*\n/, ''))
    expect(p.root?.tag).toBe('App')
    expect(p.imports).toEqual([])
  })

  it('returns positioned syntax errors instead of throwing', () => {
    const p = parsePlan('export default (\n  <App name="x">\n    <Screen>\n  </App>\n)\n')
    expect(p.errors.length).toBeGreaterThan(0)
    expect(p.errors[0]?.pos.line).toBeGreaterThan(1)
    expect(() => parsePlan('<<<{{{ ))) /*')).not.toThrow()
  })

  it('handles an empty file', () => {
    const p = parsePlan('')
    expect(p).toMatchObject({ root: null, roots: [], errors: [] })
  })

  it('accepts a function default export and keeps markers outside elements as loose comments', () => {
    const p = parsePlan(
      '/* TASK-1 [ADD]: stray */\nexport default function Plan() {\n  return <App name="a" />\n}\n',
    )
    expect(p.root?.tag).toBe('App')
    expect(p.looseComments.map((c) => c.marker?.kind)).toEqual(['ADD'])
  })
})
