// The shipped typings (resources/plan/plan-components.d.ts) must type-check the valid example plans and declare
// exactly the components and props the validator knows.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { components } from './components'

const repo = join(import.meta.dirname, '../../..')
const dts = join(repo, 'resources/plan/plan-components.d.ts')

describe('plan-components.d.ts', () => {
  it('type-checks the valid example plans with tsc --noEmit', () => {
    const tsc = join(repo, 'node_modules/typescript/bin/tsc')
    const out = (() => {
      try {
        return execFileSync(process.execPath, [tsc, '-p', join(repo, 'resources/plan'), '--noEmit'], {
          encoding: 'utf8',
        })
      } catch (err) {
        return String((err as { stdout?: string }).stdout ?? err)
      }
    })()
    expect(out).toBe('')
  })

  it('declares every component with the props the validator knows', () => {
    const sf = ts.createSourceFile(dts, readFileSync(dts, 'utf8'), ts.ScriptTarget.Latest, true)
    const declared = new Map<string, string[]>()
    const visit = (node: ts.Node): void => {
      if (ts.isInterfaceDeclaration(node) && node.name.text.endsWith('Props')) {
        const names = node.members.flatMap((m) => (m.name && ts.isIdentifier(m.name) ? [m.name.text] : []))
        declared.set(
          node.name.text.slice(0, -5),
          names.filter((n) => n !== 'children'),
        )
      }
      node.forEachChild(visit)
    }
    visit(sf)
    declared.set('Rule', ['no', 'always', 'prefer'])
    for (const [name, spec] of Object.entries(components)) {
      expect(declared.get(name)?.sort(), name).toEqual([...spec.props].sort())
    }
    const text = sf.text
    for (const name of Object.keys(components)) {
      expect(text).toContain(`declare const ${name}: RalphPlan.Component`)
      expect(text).toContain(`export const ${name}: RalphPlan.Component`)
    }
  })
})
