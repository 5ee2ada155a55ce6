// Ralph Studio's own ESLint rules (plugin `ralph`): the layering and conventions of DESIGN.md §2 and issue #25 that
// no stock rule expresses. Plain ESM so eslint.config.js loads it without a build; tests in tests/lint/.
import { crossing, indexSpecifier, isIndex } from './paths.js'

/** Every place a module is named: import/export … from, import(), require() is not used in src/. */
function onModuleSpecifiers(check) {
  const literal = (node) =>
    node.source && node.source.type === 'Literal' && check(node.source, node.source.value)
  return {
    ImportDeclaration: literal,
    ExportNamedDeclaration: literal,
    ExportAllDeclaration: literal,
    ImportExpression: literal,
  }
}

const noDomainToHost = {
  meta: {
    type: 'problem',
    docs: {
      description: 'Domain modules of src/main never import api/, web/, cli/ or electron/ (DESIGN.md §2).',
    },
    schema: [],
    messages: {
      host: "The domain module '{{from}}' imports the host '{{to}}/': hosts call the domain, never the reverse (DESIGN.md §2).",
    },
  },
  create(context) {
    const file = context.physicalFilename ?? context.filename
    return onModuleSpecifiers((node, specifier) => {
      if (typeof specifier !== 'string') return
      const c = crossing(file, specifier)
      if (c && c.from.kind === 'domain' && c.to.kind === 'host')
        context.report({ node, messageId: 'host', data: { from: c.from.name, to: c.to.name } })
    })
  },
}

const indexImports = {
  meta: {
    type: 'suggestion',
    docs: {
      description:
        "Imports between src/main's domain modules, and between renderer features, go through the module's index.ts.",
    },
    schema: [],
    messages: {
      internal:
        "'{{specifier}}' reaches into {{to}}'s internals: import from '{{index}}' (its index.ts) instead. scripts/reroute-imports.ts rewrites these.",
    },
  },
  create(context) {
    const file = context.physicalFilename ?? context.filename
    return onModuleSpecifiers((node, specifier) => {
      if (typeof specifier !== 'string') return
      const c = crossing(file, specifier)
      if (!c || isIndex(c.to.rest)) return
      const sameLayer =
        (c.from.kind === 'domain' && c.to.kind === 'domain') ||
        (c.from.kind === 'feature' && c.to.kind === 'feature')
      if (!sameLayer) return
      context.report({
        node,
        messageId: 'internal',
        data: { specifier, to: c.to.name, index: indexSpecifier(file, c.to) },
      })
    })
  },
}

/** SQL keywords as SQL writes them (upper case), so English prose ("Select a file from …") is not taken for it. */
const SQL =
  /\b(SELECT\b[\s\S]*?\bFROM|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+[\w"]+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX|UNIQUE\s+INDEX|VIEW|TRIGGER)|ALTER\s+TABLE|DROP\s+(TABLE|INDEX)|PRAGMA\s+\w)\b/

const looksLikeSql = (text) => SQL.test(text)

function textOf(node) {
  if (node.type === 'Literal' && typeof node.value === 'string') return node.value
  if (node.type === 'TemplateLiteral')
    return node.quasis.map((q) => q.value.cooked ?? q.value.raw).join(' ? ')
  return undefined
}

const noSqlOutsideStore = {
  meta: {
    type: 'problem',
    docs: { description: 'SQL lives only in src/main/store/ (the SQLite boundary).' },
    schema: [],
    messages: {
      sql: 'SQL outside src/main/store/: move the query into a repository there and call it.',
      prepare: '`.{{name}}()` on a database outside src/main/store/: move the query into a repository there.',
    },
  },
  create(context) {
    const reported = new Set()
    const report = (node, messageId, data) => {
      if (reported.has(node)) return
      reported.add(node)
      context.report({ node, messageId, data })
    }
    const checkText = (node) => {
      // A template inside a tagged template or a type position is still text that reaches the database.
      const text = textOf(node)
      if (text !== undefined && looksLikeSql(text)) report(node, 'sql')
    }
    return {
      Literal: checkText,
      TemplateLiteral: checkText,
      CallExpression(node) {
        const callee = node.callee
        if (callee.type !== 'MemberExpression' || callee.computed || callee.property.type !== 'Identifier')
          return
        const name = callee.property.name
        // better-sqlite3's statement makers; `.exec(` is also RegExp's, so it counts only with SQL text.
        if (name === 'prepare' || name === 'pragma') {
          report(node, 'prepare', { name })
          if (node.arguments[0]) reported.add(node.arguments[0]) // one report per query, not two
        } else if (name === 'exec' && node.arguments[0]) {
          const text = textOf(node.arguments[0])
          if (text !== undefined && looksLikeSql(text)) report(node.arguments[0], 'sql')
        }
      },
    }
  },
}

/** True when the variable declared by `param` (an identifier or a pattern) is read anywhere. */
function bindingIsRead(context, owner, param) {
  const names = new Set()
  const collect = (p) => {
    if (!p) return
    if (p.type === 'Identifier') names.add(p.name)
    else if (p.type === 'ObjectPattern')
      p.properties.forEach((q) => collect(q.type === 'RestElement' ? q.argument : q.value))
    else if (p.type === 'ArrayPattern') p.elements.forEach(collect)
    else if (p.type === 'RestElement') collect(p.argument)
    else if (p.type === 'AssignmentPattern') collect(p.left)
  }
  collect(param)
  return context.sourceCode
    .getDeclaredVariables(owner)
    .filter((v) => names.has(v.name))
    .some((v) => v.references.some((r) => r.isRead()))
}

const noSilentCatch = {
  meta: {
    type: 'problem',
    docs: {
      description:
        'A caught error must leave a record: read it (noteFailure, isMissing, rethrow) or use fallbackTo()/attempt() from src/main/workspace/failures.ts.',
    },
    schema: [],
    messages: {
      catch:
        'This catch drops the error: bind it and read it (isMissing(err), noteFailure(log, why, err), rethrow) — see src/main/workspace/failures.ts.',
      promise:
        '`.catch()` with a handler that drops the error: use `.catch(fallbackTo(log, why, value))` or read the error.',
    },
  },
  create(context) {
    return {
      CatchClause(node) {
        if (!node.param || !bindingIsRead(context, node, node.param))
          context.report({ node, messageId: 'catch' })
      },
      CallExpression(node) {
        const callee = node.callee
        if (callee.type !== 'MemberExpression') return
        const named =
          (!callee.computed && callee.property.type === 'Identifier' && callee.property.name === 'catch') ||
          (callee.computed && callee.property.type === 'Literal' && callee.property.value === 'catch')
        const handler = node.arguments[0]
        if (!named || !handler) return
        if (handler.type !== 'ArrowFunctionExpression' && handler.type !== 'FunctionExpression') return
        const param = handler.params[0]
        if (!param || !bindingIsRead(context, handler, param)) context.report({ node, messageId: 'promise' })
      },
    }
  },
}

export default {
  meta: { name: 'eslint-plugin-ralph', version: '1.0.0' },
  rules: {
    'no-domain-to-host': noDomainToHost,
    'index-imports': indexImports,
    'no-sql-outside-store': noSqlOutsideStore,
    'no-silent-catch': noSilentCatch,
  },
}
