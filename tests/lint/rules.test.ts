// RuleTester cases for eslint-rules/ (the `ralph` plugin): what each rule accepts and what it reports.
import { RuleTester } from 'eslint'
import tseslint from 'typescript-eslint'
import { describe, it } from 'vitest'
import ralph from '../../eslint-rules/index.js'

RuleTester.describe = describe
RuleTester.it = it
RuleTester.itOnly = it.only

const tester = new RuleTester({
  languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: 'module' },
})
const rule = (name: string) => ralph.rules[name]!
const at = (path: string) => `/repo/src/${path}`

tester.run('no-domain-to-host', rule('no-domain-to-host'), {
  valid: [
    { filename: at('main/loop/runTask.ts'), code: "import { x } from '../snapshots'" },
    { filename: at('main/loop/runTask.ts'), code: "import { x } from '../../shared/api/contract'" },
    { filename: at('main/api/core.ts'), code: "import { x } from '../web/server'" },
    { filename: at('main/cli/entry.ts'), code: "import { createCore } from '../api/core'" },
    { filename: at('main/snapshots/engine.ts'), code: "import { api } from './api/thing'" },
    { filename: at('main/loop/runTask.ts'), code: "import { z } from 'zod'" },
  ],
  invalid: [
    {
      filename: at('main/loop/runTask.ts'),
      code: "import { createCore } from '../api/core'",
      errors: [{ messageId: 'host', data: { from: 'loop', to: 'api' } }],
    },
    {
      filename: at('main/snapshots/deep/x.ts'),
      code: "import type { Cli } from '../../cli/args'",
      errors: [{ messageId: 'host' }],
    },
    {
      filename: at('main/store/db.ts'),
      code: "export * from '../electron/secrets'",
      errors: [{ messageId: 'host' }],
    },
    {
      filename: at('main/llm/a.ts'),
      code: "const m = await import('../web')",
      errors: [{ messageId: 'host' }],
    },
  ],
})

tester.run('index-imports', rule('index-imports'), {
  valid: [
    { filename: at('main/loop/runTask.ts'), code: "import { save } from '../snapshots'" },
    { filename: at('main/loop/runTask.ts'), code: "import { save } from '../snapshots/index'" },
    { filename: at('main/loop/runTask.ts'), code: "import { save } from '../snapshots/index.js'" },
    { filename: at('main/snapshots/engine.ts'), code: "import { pack } from './git/pack'" },
    { filename: at('main/snapshots/git/pack.ts'), code: "import { tags } from '../tags'" },
    // Hosts may reach into the domain; only domain-to-domain and feature-to-feature imports are held to index.ts.
    { filename: at('main/api/snapshots.ts'), code: "import { e } from '../snapshots/engine'" },
    { filename: at('main/loop/runTask.ts'), code: "import { C } from '../../shared/api/contract'" },
    { filename: at('renderer/src/features/chat/Chat.tsx'), code: "import { Plan } from '../plan'" },
    { filename: at('renderer/src/app/App.tsx'), code: "import { Chat } from '../features/chat/Chat'" },
    { filename: at('renderer/src/features/chat/Chat.tsx'), code: "import { Button } from '../../ui/Button'" },
  ],
  invalid: [
    {
      filename: at('main/loop/runTask.ts'),
      code: "import { save } from '../snapshots/engine'",
      errors: [
        {
          messageId: 'internal',
          data: { specifier: '../snapshots/engine', to: 'snapshots', index: '../snapshots' },
        },
      ],
    },
    {
      filename: at('main/loop/deep/x.ts'),
      code: "import type { T } from '../../store/tasksRepo'",
      errors: [
        {
          messageId: 'internal',
          data: { specifier: '../../store/tasksRepo', to: 'store', index: '../../store' },
        },
      ],
    },
    {
      filename: at('main/tools/index.ts'),
      code: "export { a } from '../llm/modelTurn'",
      errors: [{ messageId: 'internal' }],
    },
    {
      filename: at('renderer/src/features/chat/Chat.tsx'),
      code: "import { useProject } from '../project/useProject'",
      errors: [
        {
          messageId: 'internal',
          data: { specifier: '../project/useProject', to: 'project', index: '../project' },
        },
      ],
    },
  ],
})

tester.run('no-sql-outside-store', rule('no-sql-outside-store'), {
  valid: [
    "const m = 'Select a project from the list'",
    'const r = /a(b)/.exec(text)',
    "execFile('git', ['commit'])",
    'const t = `Update the plan, then set it aside`',
  ],
  invalid: [
    { code: "db.prepare('SELECT id FROM tasks WHERE x = ?').get(1)", errors: [{ messageId: 'prepare' }] },
    { code: 'const q = `INSERT INTO tasks (id) VALUES (${id})`', errors: [{ messageId: 'sql' }] },
    { code: "db.exec('DELETE FROM secrets')", errors: [{ messageId: 'sql' }] },
    { code: "const q = 'UPDATE tasks SET state = ?'", errors: [{ messageId: 'sql' }] },
    { code: 'db.prepare(query)', errors: [{ messageId: 'prepare' }] },
    { code: "db.pragma('journal_mode = WAL')", errors: [{ messageId: 'prepare' }] },
  ],
})

tester.run('no-silent-catch', rule('no-silent-catch'), {
  valid: [
    'try { f() } catch (err) { if (!isMissing(err)) throw err }',
    "try { f() } catch (err) { noteFailure(log, 'why', err) }",
    'try { f() } catch (err) { throw err }',
    'try { f() } catch ({ code }) { if (code !== 1) g() }',
    "p.catch(fallbackTo(log, 'why', null))",
    'p.catch(handle)',
    'p.catch((err) => { throw wrap(err) })',
    "p.catch(function (e) { noteFailure(log, 'why', e) })",
    'p.then((x) => x)',
  ],
  invalid: [
    { code: 'try { f() } catch { g() }', errors: [{ messageId: 'catch' }] },
    { code: 'try { f() } catch (err) { return null }', errors: [{ messageId: 'catch' }] },
    { code: 'try { f() } catch (_err) { /* fine */ }', errors: [{ messageId: 'catch' }] },
    // A shadowing binding does not read the caught error.
    { code: 'try { f() } catch (err) { const g = (err) => err; g(1) }', errors: [{ messageId: 'catch' }] },
    { code: 'p.catch(() => null)', errors: [{ messageId: 'promise' }] },
    { code: 'p.catch((err) => null)', errors: [{ messageId: 'promise' }] },
    { code: 'p.catch(function () { return 1 })', errors: [{ messageId: 'promise' }] },
    { code: "p['catch'](() => undefined)", errors: [{ messageId: 'promise' }] },
  ],
})
