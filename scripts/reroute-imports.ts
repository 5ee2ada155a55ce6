// Reroutes imports that reach into another module's internals through that module's index.ts, as the lint rule
// `ralph/index-imports` asks: `../snapshots/engine` becomes `../snapshots`, and snapshots/index.ts gains
// `export { a, type B } from './engine'` for the names it did not export yet (index.ts is created when missing).
// Scope: src/main's domain modules and src/renderer/src/features/*, non-test files (as the rule). Idempotent: a
// second run finds nothing to do. It never loops: one pass, then it reports what it could not do — name clashes
// (the index already exports another thing under that name), imports it cannot express through an index
// (default, namespace, side-effect, `export *`), and the import cycles the new re-exports create.
// Usage: `npx tsx scripts/reroute-imports.ts [--dry-run]`, then `npx prettier --write src` and the type checks.
import ts from 'typescript'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { crossing, isIndex, isTestFile, type ModuleRef } from '../eslint-rules/paths.js'

const root = process.cwd()
const dryRun = process.argv.includes('--dry-run')
const rel = (file: string) => relative(root, file)

interface Export {
  name: string
  symbol: ts.Symbol
  isType: boolean
  /** './engine' relative to the module's folder. */
  from: string
}
interface Edit {
  file: string
  start: number
  end: number
  text: string
}

interface Reroute {
  from: string
  target: string
  index: string
  edit: Edit
  /** Re-exports its index must gain for it (shared with other reroutes of the same names). */
  needs: Export[]
  where: string
  specifier: string
}

const problems: string[] = []
/** index.ts path → the re-exports planned so far, by name (to see clashes while planning). */
const pending = new Map<string, Map<string, Export>>()
const reroutes: Reroute[] = []

function loadProgram(config: string): ts.Program {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(root, config),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'))
      },
    },
  )
  if (!parsed) throw new Error(`cannot read ${config}`)
  return ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options })
}

const resolved = (checker: ts.TypeChecker, s: ts.Symbol) =>
  s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s

/** The names a declaration brings in, or why it cannot go through an index. */
function namesOf(node: ts.ImportDeclaration | ts.ExportDeclaration): { names: string[] } | { why: string } {
  if (ts.isExportDeclaration(node)) {
    if (!node.exportClause) return { why: '`export *` of another module’s file' }
    if (ts.isNamespaceExport(node.exportClause)) return { why: '`export * as` of another module’s file' }
    return { names: node.exportClause.elements.map((e) => (e.propertyName ?? e.name).text) }
  }
  const clause = node.importClause
  if (!clause) return { why: 'a side-effect import' }
  if (clause.name) return { why: 'a default import' }
  if (!clause.namedBindings) return { names: [] }
  if (ts.isNamespaceImport(clause.namedBindings)) return { why: 'a namespace import (`* as`)' }
  return { names: clause.namedBindings.elements.map((e) => (e.propertyName ?? e.name).text) }
}

function fileOfModule(checker: ts.TypeChecker, specifier: ts.Expression): ts.SourceFile | undefined {
  const symbol = checker.getSymbolAtLocation(specifier)
  const decl = symbol?.declarations?.[0]
  return decl && ts.isSourceFile(decl) ? decl : undefined
}

function indexExports(program: ts.Program, checker: ts.TypeChecker, index: string): Map<string, ts.Symbol> {
  const sf = program.getSourceFile(index)
  const moduleSymbol = sf && checker.getSymbolAtLocation(sf)
  const out = new Map<string, ts.Symbol>()
  if (!moduleSymbol) return out
  for (const s of checker.getExportsOfModule(moduleSymbol)) out.set(s.name, resolved(checker, s))
  return out
}

function planFile(program: ts.Program, checker: ts.TypeChecker, sf: ts.SourceFile): void {
  const file = sf.fileName
  for (const node of sf.statements) {
    if (!(ts.isImportDeclaration(node) || ts.isExportDeclaration(node))) continue
    const spec = node.moduleSpecifier
    if (!spec || !ts.isStringLiteral(spec)) continue
    const c = crossing(file, spec.text)
    if (!c || isIndex(c.to.rest)) continue
    if (
      !(
        (c.from.kind === 'domain' && c.to.kind === 'domain') ||
        (c.from.kind === 'feature' && c.to.kind === 'feature')
      )
    )
      continue
    const where = `${rel(file)}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`
    const names = namesOf(node)
    if ('why' in names) {
      problems.push(`${where} '${spec.text}': ${names.why}, left as it is`)
      continue
    }
    const target = fileOfModule(checker, spec)
    if (!target) {
      problems.push(`${where} '${spec.text}': does not resolve, left as it is`)
      continue
    }
    const needs = planNames(program, checker, c.to, target, names.names, where, spec.text)
    if (!needs) continue
    reroutes.push({
      from: file,
      target: target.fileName,
      index: join(c.to.root, 'index.ts'),
      edit: { file, start: spec.getStart(sf), end: spec.getEnd(), text: `'${indexSpecifier(file, c.to)}'` },
      needs,
      where,
      specifier: spec.text,
    })
  }
}

function indexSpecifier(file: string, to: ModuleRef): string {
  const r = relative(dirname(file), to.root).replace(/\\/g, '/')
  return r.startsWith('.') ? r : `./${r}`
}

/** The re-exports the index needs for these names; undefined (and a problem noted) when one clashes. */
function planNames(
  program: ts.Program,
  checker: ts.TypeChecker,
  to: ModuleRef,
  target: ts.SourceFile,
  names: string[],
  where: string,
  specifier: string,
): Export[] | undefined {
  const index = join(to.root, 'index.ts')
  const existing = indexExports(program, checker, index)
  const targetSymbol = checker.getSymbolAtLocation(target)
  const targetExports = new Map(
    (targetSymbol ? checker.getExportsOfModule(targetSymbol) : []).map((s) => [s.name, resolved(checker, s)]),
  )
  const planned = pending.get(index) ?? new Map<string, Export>()
  const wanted: Export[] = []
  for (const name of names) {
    const symbol = targetExports.get(name)
    if (!symbol) {
      problems.push(`${where} '${specifier}': '${name}' is not exported there, left as it is`)
      return undefined
    }
    if (existing.get(name) === symbol) continue
    const already = existing.get(name) ?? planned.get(name)?.symbol
    if (already && already !== symbol) {
      problems.push(
        `${where} '${specifier}': ${to.name}/index.ts already exports another '${name}' (name clash), left as it is`,
      )
      return undefined
    }
    const from = `./${relative(to.root, target.fileName)
      .replace(/\\/g, '/')
      .replace(/\.tsx?$/, '')}`
    wanted.push({ name, symbol, isType: !(symbol.flags & ts.SymbolFlags.Value), from })
  }
  for (const w of wanted) planned.set(w.name, w)
  pending.set(index, planned)
  return wanted
}

/** index.ts path → the re-exports to append, by name, for the reroutes kept. */
function additionsOf(kept: Reroute[]): Map<string, Map<string, Export>> {
  const out = new Map<string, Map<string, Export>>()
  for (const r of kept) {
    const names = out.get(r.index) ?? new Map<string, Export>()
    for (const e of r.needs) names.set(e.name, e)
    out.set(r.index, names)
  }
  return out
}

function applyEdits(kept: Reroute[]): string[] {
  const changed: string[] = []
  const byFile = new Map<string, Edit[]>()
  for (const { edit: e } of kept) byFile.set(e.file, [...(byFile.get(e.file) ?? []), e])
  for (const [file, list] of byFile) {
    let text = readFileSync(file, 'utf8')
    for (const e of list.sort((a, b) => b.start - a.start))
      text = text.slice(0, e.start) + e.text + text.slice(e.end)
    if (!dryRun) writeFileSync(file, text)
    changed.push(`${rel(file)}: ${list.length} import(s) rerouted`)
  }
  for (const [index, names] of additionsOf(kept)) {
    if (names.size === 0) continue
    const byFrom = new Map<string, Export[]>()
    for (const e of names.values()) byFrom.set(e.from, [...(byFrom.get(e.from) ?? []), e])
    const lines = [...byFrom]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([from, list]) => {
        const items = list
          .sort((a, b) => a.name.localeCompare(b.name))
          .map((e) => (e.isType ? `type ${e.name}` : e.name))
        return `export { ${items.join(', ')} } from '${from}'`
      })
    const created = !existsSync(index)
    const before = created ? '' : readFileSync(index, 'utf8')
    const header = created
      ? '// The public face of this module: other modules import it from here, never from its files.\n'
      : ''
    const text = `${header}${before}${before && !before.endsWith('\n') ? '\n' : ''}${lines.join('\n')}\n`
    if (!dryRun) writeFileSync(index, text)
    changed.push(`${rel(index)}: ${created ? 'created, ' : ''}${names.size} name(s) re-exported`)
  }
  return changed
}

/** Static value imports of a file (type-only ones vanish at run time and cannot form a cycle). */
function valueImports(checker: ts.TypeChecker, sf: ts.SourceFile): string[] {
  const out: string[] = []
  for (const node of sf.statements) {
    if (!(ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) || !node.moduleSpecifier) continue
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause
      if (clause?.isTypeOnly) continue
      const named = clause?.namedBindings
      if (
        clause &&
        !clause.name &&
        named &&
        ts.isNamedImports(named) &&
        named.elements.every((e) => e.isTypeOnly)
      )
        continue
    } else if (node.isTypeOnly) continue
    const target = fileOfModule(checker, node.moduleSpecifier)
    if (target && !target.isDeclarationFile) out.push(target.fileName)
  }
  return out
}

/** Strongly connected components with more than one file: the import cycles. */
function cycles(graph: Map<string, Set<string>>): string[][] {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (v: string) => {
    index.set(v, counter)
    low.set(v, counter++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        scc.push(w)
      } while (w !== v)
      if (scc.length > 1) found.push(scc)
    }
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return found
}

const exportFile = (index: string, e: Export) => {
  const to = join(dirname(index), `${e.from}.ts`)
  return existsSync(to) ? to : `${to}x`
}

/** The file graph after the kept reroutes: importers point at the index, the index at the files it re-exports. */
function graphAfter(before: Map<string, Set<string>>, kept: Reroute[]): Map<string, Set<string>> {
  const after = new Map([...before].map(([k, v]) => [k, new Set(v)]))
  for (const r of kept) {
    const edges = after.get(r.from)!
    edges.delete(r.target)
    edges.add(r.index)
  }
  for (const [index, names] of additionsOf(kept)) {
    const edges = after.get(index) ?? new Set<string>()
    for (const e of names.values()) if (!e.isType) edges.add(exportFile(index, e))
    after.set(index, edges)
  }
  return after
}

/**
 * Keeps the reroutes that add no import cycle: an index that re-exports a file which (through other modules)
 * imports that index again runs module code before its imports are ready (`undefined` at start-up). Each round
 * finds the shortest new cycle and gives up the reroutes on it; it ends because every round drops at least one.
 */
function withoutNewCycles(checker: ts.TypeChecker, files: ts.SourceFile[], planned: Reroute[]): Reroute[] {
  const before = new Map<string, Set<string>>()
  for (const sf of files) before.set(sf.fileName, new Set(valueImports(checker, sf)))
  const old = cycles(before).map((c) => new Set(c))
  let kept = [...planned]
  for (;;) {
    const after = graphAfter(before, kept)
    const fresh = cycles(after).filter((scc) => !old.some((o) => scc.every((f) => o.has(f))))
    if (!fresh.length) return kept
    const drop = new Set<Reroute>()
    for (const scc of fresh) {
      const within = new Set(scc)
      const start = kept.find((r) => within.has(r.from) && within.has(r.index))?.index ?? scc[0]!
      const path = shortestCycle(after, within, start)
      const here = new Set<Reroute>()
      for (let i = 0; i + 1 < path.length; i++) {
        const [a, b] = [path[i]!, path[i + 1]!]
        // a reroute (a imports b's index now) or a new re-export (index a → file b) closes the cycle
        for (const r of kept)
          if (
            (r.from === a && r.index === b) ||
            (r.index === a && r.needs.some((e) => exportFile(a, e) === b))
          )
            here.add(r)
      }
      for (const r of here) drop.add(r)
      if (here.size)
        problems.push(
          `import cycle ${path.map(rel).join(' → ')}: gave up ${[...here].map((r) => `${r.where} '${r.specifier}'`).join(', ')}`,
        )
    }
    if (!drop.size) {
      problems.push(
        `new import cycles the script could not attribute: ${fresh.map((c) => c.map(rel).join(', ')).join('; ')}`,
      )
      return kept
    }
    kept = kept.filter((r) => !drop.has(r))
  }
}

/** The shortest way from `start` back to itself inside the component (breadth first). */
function shortestCycle(graph: Map<string, Set<string>>, within: Set<string>, start: string): string[] {
  const previous = new Map<string, string>()
  const queue = [start]
  while (queue.length) {
    const v = queue.shift()!
    for (const w of graph.get(v) ?? []) {
      if (!within.has(w)) continue
      if (w === start) {
        const path = [v]
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!)
        return [...path, start]
      }
      if (!previous.has(w)) {
        previous.set(w, v)
        queue.push(w)
      }
    }
  }
  return [start]
}

const changed: string[] = []
for (const config of ['tsconfig.node.json', 'tsconfig.web.json']) {
  pending.clear()
  reroutes.length = 0
  const program = loadProgram(config)
  const checker = program.getTypeChecker()
  const files = program
    .getSourceFiles()
    .filter((sf) => !sf.isDeclarationFile && rel(sf.fileName).startsWith('src/'))
  const scope = config === 'tsconfig.node.json' ? 'src/main/' : 'src/renderer/'
  for (const sf of files)
    if (rel(sf.fileName).startsWith(scope) && !isTestFile(sf.fileName)) planFile(program, checker, sf)
  changed.push(...applyEdits(withoutNewCycles(checker, files, reroutes)))
}

console.log(
  changed.length
    ? `${dryRun ? 'Would change' : 'Changed'}:\n  ${changed.join('\n  ')}`
    : 'Nothing to reroute.',
)
if (problems.length) console.log(`Left as they are (${problems.length}):\n  ${problems.join('\n  ')}`)
