import { describe, expect, it } from 'vitest'
import { countItems, matchList, resolveImport } from './count'
import { memorySource } from './fileSource'

const flavors = (names: string[]) =>
  `export interface Flavor { name: string; color: string }\nexport const flavors: Flavor[] = [\n${names
    .map(
      (n) =>
        `  { name: '${n}', color: '#${n.length}00', ingredients: [{ k: 'caffeine', mg: 80 }, { k: 'taurine', mg: 1000 }] },`,
    )
    .join('\n')}\n]\n`

const eight = ['Volt', 'Surge', 'Nitro', 'Blaze', 'Frost', 'Pulse', 'Rush', 'Spark']

describe('countItems', () => {
  it('counts an array of object literals in a data file, skipping nested arrays', async () => {
    const r = await countItems('src/data/flavors.ts', flavors(eight))
    expect(r.ok && r.best).toMatchObject({ kind: 'array', key: 'flavors', count: 8, name: 'flavors' })
    expect(r.ok && r.best?.items).toEqual(eight)
  })

  it('picks the largest list when a file has several', async () => {
    const text = `const nav = [{ label: 'Home' }, { label: 'Shop' }]\n${flavors(eight)}`
    const r = await countItems('src/data.ts', text)
    expect(r.ok && r.best?.key).toBe('flavors')
  })

  it('follows a .map() over an imported array into its module', async () => {
    const component = `import { flavors } from '../data/flavors'
import { Card } from './Card'
export function FlavorGrid() {
  return (
    <section>
      <h2>Flavors</h2>
      <span>new</span><span>hot</span><span>cold</span>
      <div className="grid">{flavors.map((f) => <Card key={f.name} {...f} />)}</div>
    </section>
  )
}
`
    const source = memorySource({ 'src/data/flavors.ts': flavors(eight) })
    const r = await countItems('src/components/FlavorGrid.tsx', component, source)
    expect(r.ok && r.best).toMatchObject({
      kind: 'map-source',
      origin: 'src/data/flavors.ts',
      key: 'flavors',
      count: 8,
    })
    // Without the module, the sibling <span> run is what is left to count.
    const alone = await countItems('src/components/FlavorGrid.tsx', component)
    expect(alone.ok && alone.best).toMatchObject({ kind: 'jsx-run', count: 3 })
  })

  it('counts a run of sibling JSX elements with the same tag', async () => {
    const text = `export const Nav = () => (
  <ul>
    <li>Home</li>
    {/* a comment between items */}
    <li>Shop</li>
    <li>About</li>
    <li>Contact</li>
  </ul>
)
`
    const r = await countItems('src/Nav.tsx', text)
    expect(r.ok && r.best).toMatchObject({ kind: 'jsx-run', key: 'jsx:ul>li', count: 4 })
    expect(r.ok && r.best?.items).toEqual(['Home', 'Shop', 'About', 'Contact'])
  })

  it('counts a .map() over a local array of strings when there is nothing else', async () => {
    const text = `const tags = ['a', 'b', 'c', 'd', 'e']\nexport const T = () => <p>{tags.map((t) => <b>{t}</b>)}</p>\n`
    const r = await countItems('src/T.tsx', text)
    expect(r.ok && r.best).toMatchObject({ kind: 'map-source', count: 5 })
  })

  it('counts JSON data', async () => {
    const r = await countItems(
      'src/flavors.json',
      JSON.stringify({ flavors: eight.map((name) => ({ name })) }),
    )
    expect(r.ok && r.best).toMatchObject({ count: 8, key: 'default.flavors' })
  })

  it('reports a file that does not parse instead of crashing', async () => {
    const r = await countItems('src/Broken.tsx', 'export const X = () => <div>{items.map(</div>\n')
    expect(r).toMatchObject({ ok: false, reason: 'syntax' })
    expect(!r.ok && r.message).toMatch(/src\/Broken.tsx does not parse \(line 1/)
  })

  it('says when a file type cannot be counted', async () => {
    expect(await countItems('src/styles.css', '.a{}')).toMatchObject({ ok: false, reason: 'unsupported' })
  })

  it('matches the same list across versions even when another list becomes larger', async () => {
    const before = await countItems(
      'src/d.ts',
      `export const a = [{ id: 1 }, { id: 2 }, { id: 3 }]\nexport const b = [{ id: 9 }]`,
    )
    const now = await countItems(
      'src/d.ts',
      `export const a = [{ id: 1 }]\nexport const b = [{ id: 9 }, { id: 8 }, { id: 7 }, { id: 6 }]`,
    )
    const bl = before.ok ? before.best : null
    expect(bl?.key).toBe('a')
    expect(matchList(bl, now)).toMatchObject({ key: 'a', count: 1 })
  })

  it('resolves relative and @/ imports', () => {
    expect(resolveImport('src/components/A.tsx', '../data/x')).toContain('src/data/x.ts')
    expect(resolveImport('src/A.tsx', '@/data/x')).toContain('src/data/x/index.ts')
    expect(resolveImport('src/A.tsx', 'react')).toEqual([])
  })
})
