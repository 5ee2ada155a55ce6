// plan.tsx → typed tree, with the TypeScript parser (the plan is read, never executed). Syntax errors come back
// as positioned errors; this function does not throw on any input.
import type TS from 'typescript'
import { ts } from './typescriptApi'
import { parseMarker } from './markers'
import type { Plan, PlanComment, PlanElement, PlanProp, Position, PropValue } from './types'

export const PLAN_MODULE = 'ralph-plan'

interface Ctx {
  sf: TS.SourceFile
  text: string
}

function position(ctx: Ctx, offset: number): Position {
  const { line, character } = ctx.sf.getLineAndCharacterOfPosition(offset)
  return { line: line + 1, column: character + 1, offset }
}

/** Evaluates literal prop values; anything else is kept as source text (kind 'expression'). */
export function evaluate(expr: TS.Expression, sf: TS.SourceFile): PropValue {
  if (ts.isParenthesizedExpression(expr) || ts.isAsExpression(expr) || ts.isSatisfiesExpression(expr)) {
    return evaluate(expr.expression, sf)
  }
  if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) {
    return { kind: 'string', value: expr.text }
  }
  if (ts.isNumericLiteral(expr)) return { kind: 'number', value: Number(expr.text) }
  if (
    ts.isPrefixUnaryExpression(expr) &&
    expr.operator === ts.SyntaxKind.MinusToken &&
    ts.isNumericLiteral(expr.operand)
  ) {
    return { kind: 'number', value: -Number(expr.operand.text) }
  }
  if (expr.kind === ts.SyntaxKind.TrueKeyword) return { kind: 'boolean', value: true }
  if (expr.kind === ts.SyntaxKind.FalseKeyword) return { kind: 'boolean', value: false }
  if (expr.kind === ts.SyntaxKind.NullKeyword) return { kind: 'null' }
  if (ts.isArrayLiteralExpression(expr)) {
    return { kind: 'array', items: expr.elements.map((e) => evaluate(e, sf)) }
  }
  if (ts.isObjectLiteralExpression(expr)) {
    const entries: Record<string, PropValue> = {}
    for (const p of expr.properties) {
      if (ts.isPropertyAssignment(p)) {
        const key = propertyKey(p.name)
        if (key !== null) {
          entries[key] = evaluate(p.initializer, sf)
          continue
        }
      }
      return { kind: 'expression', text: expr.getText(sf) }
    }
    return { kind: 'object', entries }
  }
  return { kind: 'expression', text: expr.getText(sf) }
}

export function propertyKey(name: TS.PropertyName): string | null {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text
  if (ts.isPrivateIdentifier(name)) return null
  if (ts.isComputedPropertyName(name) && ts.isStringLiteral(name.expression)) return name.expression.text
  return null
}

/** Comments between two offsets, found with the TypeScript scanner (leading-comment helpers skip same-line ones). */
function comments(ctx: Ctx, from: number, to: number): PlanComment[] {
  const out: PlanComment[] = []
  if (to <= from) return out
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, ctx.text)
  scanner.resetTokenState(from)
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    const start = scanner.getTokenStart()
    if (start >= to) break
    if (kind !== ts.SyntaxKind.MultiLineCommentTrivia && kind !== ts.SyntaxKind.SingleLineCommentTrivia) {
      if (kind === ts.SyntaxKind.WhitespaceTrivia || kind === ts.SyntaxKind.NewLineTrivia) continue
      break
    }
    const end = scanner.getTokenEnd()
    const raw = ctx.text.slice(start, end)
    const parsed = parseMarker(raw)
    out.push({
      text: raw,
      pos: position(ctx, start),
      end: position(ctx, end),
      marker: parsed.marker,
      problem: parsed.problem,
    })
  }
  return out
}

function convertProps(ctx: Ctx, attrs: TS.JsxAttributes): PlanProp[] {
  const props: PlanProp[] = []
  for (const a of attrs.properties) {
    const pos = position(ctx, a.getStart(ctx.sf))
    const end = position(ctx, a.end)
    if (ts.isJsxSpreadAttribute(a)) {
      props.push({ name: '...', value: { kind: 'expression', text: a.expression.getText(ctx.sf) }, pos, end })
      continue
    }
    const name = a.name.getText(ctx.sf)
    const init = a.initializer
    let value: PropValue
    if (!init) value = { kind: 'boolean', value: true }
    else if (ts.isStringLiteral(init)) value = { kind: 'string', value: init.text }
    else if (ts.isJsxExpression(init)) {
      value = init.expression ? evaluate(init.expression, ctx.sf) : { kind: 'expression', text: '' }
    } else value = { kind: 'expression', text: init.getText(ctx.sf) }
    props.push({ name, value, pos, end })
  }
  return props
}

function convertElement(ctx: Ctx, node: TS.JsxElement | TS.JsxSelfClosingElement): PlanElement {
  const opening = ts.isJsxElement(node) ? node.openingElement : node
  const tagStart = opening.tagName.getStart(ctx.sf)
  const el: PlanElement = {
    tag: opening.tagName.getText(ctx.sf),
    props: convertProps(ctx, opening.attributes),
    children: [],
    comments: [],
    text: '',
    pos: position(ctx, node.getStart(ctx.sf)),
    end: position(ctx, node.end),
    tagPos: position(ctx, tagStart),
    tagEnd: position(ctx, opening.tagName.end),
  }
  if (ts.isJsxElement(node)) addChildren(ctx, el, node.children)
  return el
}

function addChildren(ctx: Ctx, el: PlanElement, children: TS.NodeArray<TS.JsxChild>): void {
  const text: string[] = []
  for (const child of children) {
    if (ts.isJsxElement(child) || ts.isJsxSelfClosingElement(child))
      el.children.push(convertElement(ctx, child))
    else if (ts.isJsxFragment(child)) addChildren(ctx, el, child.children)
    else if (ts.isJsxText(child)) {
      if (!child.containsOnlyTriviaWhiteSpaces) text.push(child.text)
    } else if (ts.isJsxExpression(child)) {
      el.comments.push(...comments(ctx, child.getStart(ctx.sf) + 1, child.end))
      const e = child.expression
      if (e && (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e))) text.push(e.text)
    }
  }
  el.text = text.join(' ').replace(/\s+/g, ' ').trim()
}

/** Unwraps `export default (…)`, `() => (…)`, `function () { return … }` down to the JSX trees. */
function jsxRoots(node: TS.Node | undefined): (TS.JsxElement | TS.JsxSelfClosingElement)[] {
  if (!node) return []
  if (ts.isJsxElement(node) || ts.isJsxSelfClosingElement(node)) return [node]
  if (ts.isJsxFragment(node)) {
    return node.children.flatMap((c) =>
      ts.isJsxElement(c) || ts.isJsxSelfClosingElement(c) || ts.isJsxFragment(c) ? jsxRoots(c) : [],
    )
  }
  if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node)) {
    return jsxRoots(node.expression)
  }
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isFunctionDeclaration(node)) {
    const body = node.body
    if (!body) return []
    if (!ts.isBlock(body)) return jsxRoots(body)
    for (const s of body.statements) if (ts.isReturnStatement(s)) return jsxRoots(s.expression)
  }
  return []
}

function syntaxErrors(ctx: Ctx): Plan['errors'] {
  // parseDiagnostics is internal but long-stable; a Program just to read syntax errors would cost ~10× more.
  const diags = (ctx.sf as unknown as { parseDiagnostics?: readonly TS.Diagnostic[] }).parseDiagnostics ?? []
  return diags.map((d) => ({
    message: ts.flattenDiagnosticMessageText(d.messageText, ' ').replace(/\.$/, ''),
    pos: position(ctx, d.start ?? 0),
  }))
}

export function parsePlan(text: string, fileName = 'plan.tsx'): Plan {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TSX)
  const ctx: Ctx = { sf, text }
  const imports: string[] = []
  const looseComments: PlanComment[] = []
  let rootNodes: (TS.JsxElement | TS.JsxSelfClosingElement)[] = []
  let rootPos: Position | null = null

  for (const st of sf.statements) {
    looseComments.push(...comments(ctx, st.pos, st.getStart(sf)))
    if (ts.isImportDeclaration(st)) {
      const spec = st.moduleSpecifier
      const named = st.importClause?.namedBindings
      if (ts.isStringLiteral(spec) && spec.text === PLAN_MODULE && named && ts.isNamedImports(named)) {
        imports.push(...named.elements.map((e) => e.name.text))
      }
      continue
    }
    let found: TS.Node | undefined
    if (ts.isExportAssignment(st)) found = st.expression
    else if (
      ts.isFunctionDeclaration(st) &&
      st.modifiers?.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)
    ) {
      found = st
    } else if (ts.isExpressionStatement(st)) found = st.expression
    const roots = jsxRoots(found)
    if (roots.length > 0 && rootNodes.length === 0) {
      rootNodes = roots
      rootPos = position(ctx, st.getStart(sf))
    }
  }
  looseComments.push(...comments(ctx, sf.endOfFileToken.pos, text.length))

  const roots = rootNodes.map((n) => convertElement(ctx, n))
  const first = roots[0]
  return {
    source: text,
    root: roots.length === 1 && first && first.tag === 'App' ? first : null,
    roots,
    errors: syntaxErrors(ctx),
    looseComments: looseComments.filter((c) => c.marker || c.problem),
    imports,
    rootPos,
    lineCount: sf.getLineStarts().length,
  }
}
