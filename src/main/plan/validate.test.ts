import { describe, expect, it } from 'vitest'
import { validatePlan, failureRules, warningRules, type ValidateOptions } from './validate'

// A plan that passes every rule; each test breaks one thing.
const valid = `export default (
  <App name="Shop">
    <Theme mood="calm" seed={12}>
      <Rule no="hardcoded colors" />
    </Theme>
    <Screen name="home">
      <Nav>
        <NavItem label="Home" to="/" />
      </Nav>
      <Content>
        <Section gumdrop="hero" files={['src/Hero.tsx']}>
          {/* TASK-3 [MODIFY]: new headline */}
        </Section>
        <Section gumdrop="grid-list" files={['src/Grid.tsx']} />
        <Section gumdrop="cta" files={['src/Cta.tsx']} />
      </Content>
    </Screen>
    <Screen name="about">
      <Content>
        <Section gumdrop="team" files={['src/Team.tsx']} />
      </Content>
    </Screen>
    <Data>
      <Schema name="Product" fields={{ id: 'uuid', title: 'string' }} />
      <Endpoint resource="products" pattern="crud" />
    </Data>
  </App>
)
`

const opts: ValidateOptions = {
  taskNumber: 3,
  fileExists: () => true,
  gumdrops: ['hero', 'grid-list', 'cta', 'team'],
}
const rules = (text: string, o: ValidateOptions = opts) => validatePlan(text, o).findings.map((f) => f.rule)
const only = (text: string, rule: string, o: ValidateOptions = opts) =>
  validatePlan(text, o).findings.filter((f) => f.rule === rule)

describe('validatePlan', () => {
  it('passes a complete plan with no findings', () => {
    const r = validatePlan(valid, opts)
    expect(r.findings).toEqual([])
    expect(r.valid).toBe(true)
    expect(r.taskNumber).toBe(3)
  })

  it('has stable rule ids split into failures and warnings', () => {
    expect(failureRules).toHaveLength(10)
    expect(warningRules).toEqual([
      'has-theme',
      'missing-nav',
      'low-diversity',
      'adjacent-grids',
      'section-files-missing',
    ])
  })

  it('parseable: syntax errors come back positioned, and stop the other rules', () => {
    const r = validatePlan(
      valid.replace(
        '<Content>\n        <Section gumdrop="hero"',
        '<Content>\n        <Section gumdrop="hero" <',
      ),
      opts,
    )
    expect(r.valid).toBe(false)
    expect(r.findings.every((f) => f.rule === 'parseable')).toBe(true)
    expect(r.findings[0]?.severity).toBe('failure')
    expect(r.findings.some((f) => f.line === 11 && f.column > 1)).toBe(true)
    expect(rules(valid)).not.toContain('parseable')
  })

  it('has-app-root: empty file, no export, several roots, wrong root', () => {
    const empty = validatePlan('', opts)
    expect(empty.failures.map((f) => f.rule)).toEqual(['has-app-root'])
    expect(empty.failures[0]?.message).toMatch(/empty/)
    expect(rules('const x = 1\n')).toEqual(['has-app-root'])
    expect(rules('export default (<><App name="a" /><App name="b" /></>)')).toEqual(['has-app-root'])
    const wrong = only('export default (<Screen name="a" />)', 'has-app-root')
    expect(wrong[0]?.message).toMatch(/root must be <App/)
  })

  it('has-screens', () => {
    const f = only('export default (<App name="a"><Theme /></App>)', 'has-screens')
    expect(f[0]).toMatchObject({ severity: 'failure', line: 1 })
    expect(rules(valid)).not.toContain('has-screens')
  })

  it('sections-have-gumdrops: says which section and asks for a recipe', () => {
    const f = only(valid.replace('<Section gumdrop="cta" ', '<Section '), 'sections-have-gumdrops')
    expect(f).toHaveLength(1)
    expect(f[0]).toMatchObject({ line: 15, column: 10 })
    expect(f[0]?.message).toMatch(/Section at line 15 has no gumdrop — which recipe should it follow\?/)
  })

  it('no-empty-screens', () => {
    const text = valid.replace(
      /<Screen name="about">[\s\S]*?<\/Screen>/,
      '<Screen name="about"><Content /></Screen>',
    )
    expect(only(text, 'no-empty-screens')[0]?.message).toMatch(/Screen "about" at line 18 is empty/)
  })

  it('known-components: unknown tags with the nearest suggestion, and misplaced ones', () => {
    const f = only(
      valid.replace('<Section gumdrop="cta" files={[\'src/Cta.tsx\']} />', '<Sectoin gumdrop="cta" />'),
      'known-components',
    )
    expect(f[0]?.message).toMatch(/Unknown component <Sectoin>.*Did you mean <Section>/)
    const misplaced = only(
      valid.replace('<Rule no="hardcoded colors" />', '<Section gumdrop="x" files={[]} />'),
      'known-components',
    )
    expect(misplaced[0]?.message).toMatch(/cannot be inside <Theme>: put it inside <Content> or <Aside>/)
  })

  it('required-props', () => {
    expect(only(valid.replace('<App name="Shop">', '<App>'), 'required-props')[0]?.message).toMatch(
      /<App> at line 2 is missing the required prop name/,
    )
    expect(only(valid.replace(" files={['src/Cta.tsx']}", ''), 'required-props')[0]?.message).toMatch(
      /no files/,
    )
    expect(
      only(valid.replace('<Rule no="hardcoded colors" />', '<Rule no="a" always="b" />'), 'required-props')[0]
        ?.message,
    ).toMatch(/exactly one of no, always or prefer/)
    expect(only(valid.replace('pattern="crud"', 'pattern="crude"'), 'required-props')[0]?.message).toMatch(
      /Did you mean "crud"/,
    )
    expect(only(valid.replace('<NavItem label="Home"', '<NavItem'), 'required-props')).toHaveLength(1)
    expect(rules(valid)).not.toContain('required-props')
  })

  it('schema-endpoint-match: every Endpoint has a Schema (plural resource names match)', () => {
    expect(rules(valid)).not.toContain('schema-endpoint-match')
    const f = only(valid.replace('resource="products"', 'resource="orders"'), 'schema-endpoint-match')
    expect(f[0]?.message).toMatch(/Endpoint "orders" at line 25 has no matching <Schema>/)
  })

  it('valid-markers: malformed, wrong task number, loose, REMOVE on nothing', () => {
    expect(only(valid.replace('TASK-3 [MODIFY]', 'TASK-3 [MODFY]'), 'valid-markers')[0]?.message).toMatch(
      /Malformed marker/,
    )
    const stale = only(valid.replace('TASK-3 [MODIFY]', 'TASK-2 [MODIFY]'), 'valid-markers')
    expect(stale[0]).toMatchObject({ line: 12, column: 12 })
    expect(stale[0]?.message).toMatch(/for task 2, but the current task is 3/)
    // Without a task number, the highest one used is current.
    const inferred = validatePlan(
      valid.replace(
        '<Section gumdrop="cta" files={[\'src/Cta.tsx\']} />',
        '<Section gumdrop="cta" files={[\'src/Cta.tsx\']}>{/* TASK-4 [FIX]: x */}</Section>',
      ),
      { ...opts, taskNumber: undefined },
    )
    expect(inferred.taskNumber).toBe(4)
    expect(inferred.failures.map((f) => f.rule)).toEqual(['valid-markers'])
    expect(rules(`/* TASK-3 [ADD]: 2 x */\n${valid}`)).toContain('valid-markers')
    const gone = validatePlan(valid.replace('TASK-3 [MODIFY]: new headline', 'TASK-3 [REMOVE]: the hero'), {
      ...opts,
      fileExists: () => false,
    })
    expect(gone.failures.map((f) => f.message).join()).toMatch(/\[REMOVE\].*does not exist/)
    expect(rules(valid.replace('TASK-3 [MODIFY]: new headline', 'TASK-3 [REMOVE]: the hero'))).not.toContain(
      'valid-markers',
    )
  })

  it('valid-gumdrops: only with gumdrops.json, with nearest suggestions', () => {
    const text = valid.replace('gumdrop="grid-list"', 'gumdrop="grid-lst"')
    expect(only(text, 'valid-gumdrops')[0]?.message).toMatch(/"grid-lst".*Did you mean "grid-list"/)
    expect(only(text, 'valid-gumdrops', { ...opts, gumdrops: null })).toEqual([])
  })

  it('has-theme (warning)', () => {
    const r = validatePlan(valid.replace(/<Theme[\s\S]*?<\/Theme>/, ''), opts)
    expect(r.valid).toBe(true)
    expect(r.warnings.map((f) => f.rule)).toEqual(['has-theme'])
  })

  it('missing-nav (warning)', () => {
    const r = validatePlan(valid.replace(/<Nav>[\s\S]*?<\/Nav>/, ''), opts)
    expect(r.warnings.map((f) => f.rule)).toEqual(['missing-nav'])
  })

  it('low-diversity (warning)', () => {
    const text = valid
      .replace('gumdrop="grid-list"', 'gumdrop="hero"')
      .replace('gumdrop="cta"', 'gumdrop="hero"')
    expect(only(text, 'low-diversity')[0]).toMatchObject({ severity: 'warning', line: 6 })
  })

  it('adjacent-grids (warning)', () => {
    const text = valid.replace('gumdrop="cta"', 'gumdrop="card-grid"')
    const f = only(text, 'adjacent-grids', { ...opts, gumdrops: null })
    expect(f[0]?.message).toMatch(/lines 14 and 15 are both grids/)
  })

  it('section-files-missing (warning): marked section without files or with missing files', () => {
    const none = only(valid.replace(" files={['src/Hero.tsx']}", ''), 'section-files-missing')
    expect(none[0]?.message).toMatch(/has change markers but no files/)
    const missing = only(valid, 'section-files-missing', { ...opts, fileExists: (p) => p !== 'src/Hero.tsx' })
    expect(missing[0]?.message).toMatch(/src\/Hero.tsx, which does not exist/)
    expect(missing[0]?.severity).toBe('warning')
  })

  it('every finding has a line and column', () => {
    const r = validatePlan('export default (<App><Screen /><Sektion /></App>)', opts)
    expect(r.findings.length).toBeGreaterThan(2)
    for (const f of r.findings) expect(f.line).toBeGreaterThan(0)
    for (const f of r.findings) expect(f.column).toBeGreaterThan(0)
  })

  it('handles a 3,000-line plan', () => {
    const sections = Array.from({ length: 760 }, (_, i) =>
      [
        `        <Section gumdrop="${['hero', 'cta', 'grid-list', 'team'][i % 4]}" files={['src/S${i}.tsx']}>`,
        `          {/* TASK-3 [MODIFY]: section ${i} */}`,
        '        </Section>',
        '',
      ].join('\n'),
    ).join('\n')
    const text = valid.replace('<Section gumdrop="cta" files={[\'src/Cta.tsx\']} />', sections)
    expect(text.split('\n').length).toBeGreaterThan(3000)
    const r = validatePlan(text, opts)
    expect(r.failures).toEqual([])
  })
})
