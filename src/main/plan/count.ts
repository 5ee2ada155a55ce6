// Item counting by AST (PLAN_LANGUAGE.md "Scope gates"): the largest array literal of object literals, else the
// longest run of sibling JSX elements with the same tag, else the longest `.map()` source array. A `.map()` over
// an imported array of objects is followed into its module and competes with local arrays, because that is
// where a component's items usually live.
import type TS from 'typescript'
import { ts } from './typescriptApi'
import { normalizePath, type FileSource } from './fileSource'
import { propertyKey } from './parse'

export type ListKind = 'array' | 'jsx-run' | 'map-source'

export interface ItemList {
  kind: ListKind
  /** Finds the same list in another version of the file: "flavors", "default", "jsx:ul>li", "map:items". */
  key: string
  /** The file the items are written in (the imported module for a `.map()` over an import). */
  origin: string
  count: number
  /** One identity per item: a name/id/title/label property, else the item's normalised source text. */
  items: string[]
  /** Variable or property name of the list, for messages ("flavors"). */
  name: string | null
  line: number
}

export type CountResult =
  | { ok: true; best: ItemList | null; candidates: ItemList[] }
  | { ok: false; reason: 'unsupported' | 'syntax'; message: string }

/** The script kind each countable extension is parsed as (named, so nothing loads TypeScript until a file is parsed). */
const scriptKinds: Record<string, keyof typeof TS.ScriptKind> = {
  ts: 'TS',
  mts: 'TS',
  cts: 'TS',
  tsx: 'TSX',
  js: 'JSX',
  mjs: 'JS',
  cjs: 'JS',
  jsx: 'JSX',
  json: 'JSON',
}

const extOf = (path: string): string => /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? ''
export const isCountable = (path: string): boolean => extOf(path) in scriptKinds

const identityKeys = ['name', 'id', 'title', 'label', 'slug', 'key']
const squash = (s: string): string =>
  s
    .replace(/\s+/g, ' ')
    .replace(/,\s*([}\]])/g, '$1')
    .trim()

function objectIdentity(obj: TS.ObjectLiteralExpression, sf: TS.SourceFile): string {
  for (const k of identityKeys) {
    for (const p of obj.properties) {
      if (!ts.isPropertyAssignment(p) || propertyKey(p.name) !== k) continue
      const init = p.initializer
      if (ts.isStringLiteral(init) || ts.isNoSubstitutionTemplateLiteral(init) || ts.isNumericLiteral(init)) {
        return init.text
      }
    }
  }
  return squash(obj.getText(sf))
}

function elementIdentity(el: TS.Expression, sf: TS.SourceFile): string {
  if (ts.isObjectLiteralExpression(el)) return objectIdentity(el, sf)
  if (ts.isStringLiteral(el) || ts.isNoSubstitutionTemplateLiteral(el) || ts.isNumericLiteral(el))
    return el.text
  return squash(el.getText(sf))
}

function jsxIdentity(node: TS.JsxElement | TS.JsxSelfClosingElement, sf: TS.SourceFile): string {
  const opening = ts.isJsxElement(node) ? node.openingElement : node
  for (const k of identityKeys) {
    for (const a of opening.attributes.properties) {
      if (!ts.isJsxAttribute(a) || a.name.getText(sf) !== k || !a.initializer) continue
      if (ts.isStringLiteral(a.initializer)) return a.initializer.text
      if (ts.isJsxExpression(a.initializer) && a.initializer.expression) {
        return elementIdentity(a.initializer.expression, sf)
      }
    }
  }
  if (ts.isJsxElement(node)) {
    const text = node.children
      .filter(ts.isJsxText)
      .map((t) => t.text)
      .join(' ')
    if (squash(text)) return squash(text)
  }
  return squash(node.getText(sf))
}

const unwrap = (e: TS.Expression): TS.Expression =>
  ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e)
    ? unwrap(e.expression)
    : e

function jsxTag(node: TS.JsxChild, sf: TS.SourceFile): string | null {
  if (ts.isJsxElement(node)) return node.openingElement.tagName.getText(sf)
  if (ts.isJsxSelfClosingElement(node)) return node.tagName.getText(sf)
  return null
}

interface MapRef {
  source: TS.Expression
  line: number
}

interface Scan {
  sf: TS.SourceFile
  arrays: ItemList[]
  runs: ItemList[]
  maps: MapRef[]
}

function lineOf(sf: TS.SourceFile, node: TS.Node): number {
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1
}

function arrayList(
  arr: TS.ArrayLiteralExpression,
  sf: TS.SourceFile,
  origin: string,
  key: string,
  name: string | null,
  kind: ListKind,
): ItemList {
  return {
    kind,
    key,
    origin,
    count: arr.elements.length,
    items: arr.elements.map((e) => elementIdentity(e, sf)),
    name,
    line: lineOf(sf, arr),
  }
}

const isObjectArray = (arr: TS.ArrayLiteralExpression): boolean =>
  arr.elements.length > 0 && arr.elements.every((e) => ts.isObjectLiteralExpression(unwrap(e)))

function scan(sf: TS.SourceFile, origin: string): Scan {
  const out: Scan = { sf, arrays: [], runs: [], maps: [] }
  const unnamed = new Map<string, number>()

  const visit = (node: TS.Node, key: string, name: string | null, insideList: boolean): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) {
      key = node.name.text
      name = node.name.text
    } else if (ts.isPropertyAssignment(node)) {
      const k = propertyKey(node.name)
      if (k !== null) {
        key = key ? `${key}.${k}` : k
        name = k
      }
    } else if (ts.isExportAssignment(node)) {
      key = 'default'
    }
    if (ts.isArrayLiteralExpression(node) && isObjectArray(node)) {
      // Nested arrays (a flavor's ingredients) are details of an item, not the items.
      if (!insideList) {
        const n = unnamed.get(key) ?? 0
        unnamed.set(key, n + 1)
        out.arrays.push(arrayList(node, sf, origin, n === 0 ? key : `${key}#${n}`, name, 'array'))
      }
      node.forEachChild((c) => visit(c, `${key}[]`, name, true))
      return
    }
    if (ts.isJsxElement(node) || ts.isJsxFragment(node)) collectRuns(node, sf, origin, out)
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'map'
    ) {
      out.maps.push({ source: node.expression.expression, line: lineOf(sf, node) })
    }
    node.forEachChild((c) => visit(c, key, name, insideList))
  }
  // A JSON file's one value is its default export, as `import data from './x.json'` sees it.
  visit(sf, /\.json$/i.test(sf.fileName) ? 'default' : '', null, false)
  return out
}

function collectRuns(
  node: TS.JsxElement | TS.JsxFragment,
  sf: TS.SourceFile,
  origin: string,
  out: Scan,
): void {
  const parent = ts.isJsxElement(node) ? node.openingElement.tagName.getText(sf) : '>'
  let run: (TS.JsxElement | TS.JsxSelfClosingElement)[] = []
  let tag: string | null = null
  const flush = (): void => {
    if (run.length >= 2 && tag) {
      const first = run[0] as TS.JsxElement
      out.runs.push({
        kind: 'jsx-run',
        key: `jsx:${parent}>${tag}`,
        origin,
        count: run.length,
        items: run.map((r) => jsxIdentity(r, sf)),
        name: tag,
        line: lineOf(sf, first),
      })
    }
    run = []
    tag = null
  }
  for (const child of node.children) {
    if (ts.isJsxText(child) && child.containsOnlyTriviaWhiteSpaces) continue
    if (ts.isJsxExpression(child) && !child.expression) continue // comments
    const t = jsxTag(child, sf)
    if (t && (ts.isJsxElement(child) || ts.isJsxSelfClosingElement(child))) {
      if (t !== tag) flush()
      tag = t
      run.push(child)
    } else flush()
  }
  flush()
}

function parseFile(path: string, text: string): { sf: TS.SourceFile; error: string | null } {
  const kind = ts.ScriptKind[scriptKinds[extOf(path)] ?? 'TSX']
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, kind)
  const diags = (sf as unknown as { parseDiagnostics?: readonly TS.Diagnostic[] }).parseDiagnostics ?? []
  const d = diags[0]
  if (!d) return { sf, error: null }
  const { line } = sf.getLineAndCharacterOfPosition(d.start ?? 0)
  return { sf, error: `line ${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}` }
}

/** Candidate modules for a relative (or "@/") import, in resolution order. */
export function resolveImport(fromFile: string, spec: string): string[] {
  let base: string
  if (spec.startsWith('./') || spec.startsWith('../')) {
    const dir = fromFile.includes('/') ? fromFile.slice(0, fromFile.lastIndexOf('/')) : ''
    base = normalizePath(`${dir}/${spec}`)
  } else if (spec.startsWith('@/')) base = normalizePath(`src/${spec.slice(2)}`)
  else return []
  const stripped = base.replace(/\.(js|jsx|mjs)$/, '')
  const exts = ['ts', 'tsx', 'js', 'jsx', 'mjs', 'json']
  return [base, ...exts.map((e) => `${stripped}.${e}`), ...exts.map((e) => `${base}/index.${e}`)]
}

/** Finds the expression a top-level binding is initialised with (`const flavors = [...]`, `export default [...]`). */
function bindingValue(sf: TS.SourceFile, name: string): TS.Expression | null {
  if (sf.statements.length === 1 && ts.isExpressionStatement(sf.statements[0] as TS.Statement)) {
    // A JSON file: its one expression is both the default export and the object of named keys.
    const expr = unwrap((sf.statements[0] as TS.ExpressionStatement).expression)
    if (name === 'default') return expr
    return ts.isObjectLiteralExpression(expr) ? property(expr, name) : null
  }
  for (const st of sf.statements) {
    if (name === 'default' && ts.isExportAssignment(st)) {
      const e = unwrap(st.expression)
      return ts.isIdentifier(e) ? bindingValue(sf, e.text) : e
    }
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) {
        if (ts.isIdentifier(d.name) && d.name.text === name && d.initializer) return unwrap(d.initializer)
      }
    }
    if (
      ts.isExportDeclaration(st) &&
      st.exportClause &&
      ts.isNamedExports(st.exportClause) &&
      !st.moduleSpecifier
    ) {
      for (const e of st.exportClause.elements) {
        if (e.name.text === name && e.propertyName && ts.isIdentifier(e.propertyName)) {
          return bindingValue(sf, e.propertyName.text)
        }
      }
    }
  }
  return null
}

function property(obj: TS.ObjectLiteralExpression, name: string): TS.Expression | null {
  for (const p of obj.properties) {
    if (ts.isPropertyAssignment(p) && propertyKey(p.name) === name) return unwrap(p.initializer)
  }
  return null
}

function importOf(sf: TS.SourceFile, local: string): { spec: string; imported: string } | null {
  for (const st of sf.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier) || !st.importClause) continue
    const clause = st.importClause
    if (clause.name?.text === local) return { spec: st.moduleSpecifier.text, imported: 'default' }
    const named = clause.namedBindings
    if (named && ts.isNamedImports(named)) {
      for (const e of named.elements) {
        if (e.name.text === local)
          return { spec: st.moduleSpecifier.text, imported: (e.propertyName ?? e.name).text }
      }
    }
  }
  return null
}

interface Resolved {
  sf: TS.SourceFile
  origin: string
  expr: TS.Expression
  name: string
  key: string
}

/** Resolves a `.map()` receiver (`flavors`, `data.flavors`, `[…]`) to an array literal, following imports. */
async function resolveMapSource(
  expr: TS.Expression,
  sf: TS.SourceFile,
  origin: string,
  source: FileSource | null,
  depth = 0,
): Promise<Resolved | null> {
  const e = unwrap(expr)
  if (ts.isArrayLiteralExpression(e))
    return { sf, origin, expr: e, name: 'items', key: `map@${lineOf(sf, e)}` }
  if (ts.isPropertyAccessExpression(e)) {
    const base = await resolveMapSource(e.expression, sf, origin, source, depth)
    if (!base || !ts.isObjectLiteralExpression(base.expr)) return null
    const value = property(base.expr, e.name.text)
    return value ? { ...base, expr: value, name: e.name.text, key: `${base.key}.${e.name.text}` } : null
  }
  if (!ts.isIdentifier(e)) return null
  const local = bindingValue(sf, e.text)
  if (local) return { sf, origin, expr: local, name: e.text, key: e.text }
  const imp = importOf(sf, e.text)
  if (!imp || !source || depth > 3) return null
  for (const candidate of resolveImport(origin, imp.spec)) {
    const text = await source.read(candidate)
    if (text === null) continue
    const parsed = parseFile(candidate, text)
    const value = bindingValue(parsed.sf, imp.imported)
    if (!value) return null
    if (ts.isIdentifier(value)) return resolveMapSource(value, parsed.sf, candidate, source, depth + 1)
    return { sf: parsed.sf, origin: candidate, expr: value, name: e.text, key: imp.imported }
  }
  return null
}

const pickLargest = (lists: ItemList[]): ItemList | null =>
  lists.reduce<ItemList | null>((best, l) => (best === null || l.count > best.count ? l : best), null)

/**
 * Counts the items of one file. `source` (optional) lets a `.map()` over an imported array be followed into
 * the module it comes from, read from the same version of the project.
 */
export async function countItems(
  path: string,
  text: string,
  source: FileSource | null = null,
): Promise<CountResult> {
  const file = normalizePath(path)
  if (!isCountable(file)) {
    return {
      ok: false,
      reason: 'unsupported',
      message: `${file} is not a JS/TS/JSON file, so its items cannot be counted`,
    }
  }
  const { sf, error } = parseFile(file, text)
  if (error) return { ok: false, reason: 'syntax', message: `${file} does not parse (${error})` }
  const s = scan(sf, file)

  const objectLists = [...s.arrays]
  const otherMaps: ItemList[] = []
  for (const m of s.maps) {
    const r = await resolveMapSource(m.source, sf, file, source)
    if (!r || !ts.isArrayLiteralExpression(r.expr)) continue
    if (r.origin === file && s.arrays.some((a) => a.line === lineOf(sf, r.expr))) continue // already counted
    const list = arrayList(
      r.expr,
      r.sf,
      r.origin,
      r.origin === file ? `map:${r.key}` : r.key,
      r.name,
      'map-source',
    )
    if (isObjectArray(r.expr)) objectLists.push(list)
    else otherMaps.push(list)
  }
  const candidates = [...objectLists, ...s.runs, ...otherMaps]
  const best = pickLargest(objectLists) ?? pickLargest(s.runs) ?? pickLargest(otherMaps)
  return { ok: true, best, candidates }
}

/** The list in `now` that corresponds to `before`'s list (same origin and key), else `now`'s best. */
export function matchList(before: ItemList | null, now: CountResult): ItemList | null {
  if (!now.ok) return null
  if (before) {
    const same = now.candidates.find((c) => c.origin === before.origin && c.key === before.key)
    if (same) return same
  }
  return now.best
}
