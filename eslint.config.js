// ESLint enforces the layout and import rules of DESIGN.md §2: a wrong import fails CI.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import { builtinModules } from 'node:module'

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)]

const restrict = (paths, patterns) => ({
  'no-restricted-imports': [
    'error',
    { paths: paths.map((name) => ({ name, message: 'Forbidden by DESIGN.md §2.' })), patterns },
  ],
})

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'out/**',
      'dist/**',
      'test-results/**',
      'bench-results/**',
      'resources/plan/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: restrict(
      ['electron', 'react', ...nodeBuiltins],
      [
        {
          group: ['**/main/**', '**/renderer/**', '**/preload/**'],
          message: 'src/shared imports nothing from the app (DESIGN.md §2).',
        },
      ],
    ),
  },
  {
    files: ['src/main/**/*.ts'],
    ignores: ['src/main/electron/**'],
    rules: restrict(
      ['electron', 'react', 'react-dom'],
      [
        {
          group: ['**/renderer/**', '**/preload/**', '**/electron/**', 'electron/*'],
          message: "Only src/main/electron/ may import 'electron' (DESIGN.md §2).",
        },
      ],
    ),
  },
  {
    files: ['src/preload/**/*.ts'],
    rules: restrict(
      [...nodeBuiltins],
      [{ group: ['**/main/**', '**/renderer/**'], message: 'The preload exposes only the contract.' }],
    ),
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...restrict(
        ['electron', ...nodeBuiltins],
        [
          {
            group: ['**/main/**', '**/preload/**', 'electron/*'],
            message: 'The renderer talks to the core only through the contract client (DESIGN.md §2).',
          },
        ],
      ),
    },
  },
)
