// Reports the code-health figures the closing notes quote: silent catches, functions over 120 lines in src/main,
// and the largest source files. Read-only; `npm run health` prints it, `--json` for tools.
import ts from 'typescript'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

const root = process.cwd()
const LONG_FUNCTION = 120

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

interface Finding {
  file: string
  line: number
  what: string
}

/** A catch that drops the error: no binding, or a binding never read; `.catch(() => …)` likewise. */
function silentCatches(sf: ts.SourceFile, file: string): Finding[] {
  const found: Finding[] = []
  const lineOf = (node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1
  const uses = (body: ts.Node, name: string): boolean => {
    let used = false
    const walk = (n: ts.Node) => {
      if (ts.isIdentifier(n) && n.text === name && !ts.isBindingElement(n.parent)) used = true
      if (!used) ts.forEachChild(n, walk)
    }
    walk(body)
    return used
  }
  const visit = (node: ts.Node) => {
    if (ts.isCatchClause(node)) {
      const binding = node.variableDeclaration?.name
      if (!binding || (ts.isIdentifier(binding) && !uses(node.block, binding.text)))
        found.push({ file, line: lineOf(node), what: 'catch' })
    }
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'catch'
    ) {
      const handler = node.arguments[0]
      if (handler && (ts.isArrowFunction(handler) || ts.isFunctionExpression(handler))) {
        const param = handler.parameters[0]?.name
        if (!param || (ts.isIdentifier(param) && !uses(handler.body, param.text)))
          found.push({ file, line: lineOf(node), what: '.catch' })
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return found
}

function longFunctions(sf: ts.SourceFile, file: string): Finding[] {
  const found: Finding[] = []
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line
      const lines = end - start + 1
      if (lines > LONG_FUNCTION) {
        const named = (node as ts.FunctionLikeDeclaration).name?.getText(sf)
        const owner = ts.isVariableDeclaration(node.parent) ? node.parent.name.getText(sf) : undefined
        found.push({ file, line: start + 1, what: `${named ?? owner ?? '(anonymous)'} ${lines} lines` })
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return found
}

const files = sourceFiles(join(root, 'src'))
const catches: Finding[] = []
const long: Finding[] = []
const sizes: Array<{ file: string; lines: number }> = []
for (const path of files) {
  const text = readFileSync(path, 'utf8')
  const file = relative(root, path)
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  catches.push(...silentCatches(sf, file))
  if (file.startsWith('src/main/')) long.push(...longFunctions(sf, file))
  sizes.push({ file, lines: text.split('\n').length })
}
sizes.sort((a, b) => b.lines - a.lines)

const report = {
  files: files.length,
  lines: sizes.reduce((sum, s) => sum + s.lines, 0),
  silentCatches: catches.length,
  longFunctions: long,
  largestFiles: sizes.slice(0, 10),
}
if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ ...report, catches }, null, 2))
} else {
  console.log(`${report.files} source files, ${report.lines} lines (tests excluded)`)
  console.log(`silent catches: ${report.silentCatches}`)
  if (process.argv.includes('--catches'))
    for (const c of catches) console.log(`  ${c.file}:${c.line} ${c.what}`)
  console.log(`functions over ${LONG_FUNCTION} lines in src/main: ${long.length}`)
  for (const f of long) console.log(`  ${f.file}:${f.line} ${f.what}`)
  console.log('largest files:')
  for (const s of report.largestFiles) console.log(`  ${s.lines}\t${s.file}`)
}
