import { ESLint } from 'eslint'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

// The layout rules of DESIGN.md §2 are enforced by ESLint; these prove a wrong import fails lint (and so CI).
describe('import rules', () => {
  const eslint = new ESLint({ cwd: process.cwd() })
  const lint = async (file: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: join(process.cwd(), file) })
    return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message)
  }

  it.each([
    ['src/renderer/src/bad.ts', "import { readFileSync } from 'node:fs'\nexport const x = readFileSync"],
    [
      'src/renderer/src/bad.ts',
      "import { createCore } from '../../main/api/services'\nexport const x = createCore",
    ],
    ['src/renderer/src/bad.ts', "import { ipcRenderer } from 'electron'\nexport const x = ipcRenderer"],
    ['src/main/loop/bad.ts', "import { app } from 'electron'\nexport const x = app"],
    ['src/main/api/bad.ts', "import { useState } from 'react'\nexport const x = useState"],
    ['src/shared/bad.ts', "import { join } from 'node:path'\nexport const x = join"],
    [
      'src/shared/bad.ts',
      "import { openDatabase } from '../main/store/database'\nexport const x = openDatabase",
    ],
  ])('%s: forbidden import fails', async (file, code) => {
    expect((await lint(file, code)).length).toBeGreaterThan(0)
  })

  it.each([
    ['src/main/electron/ok.ts', "import { app } from 'electron'\nexport const x = app"],
    ['src/main/loop/ok.ts', "import { join } from 'node:path'\nexport const x = join"],
    [
      'src/renderer/src/ok.ts',
      "import { z } from 'zod'\nimport { calls } from '../../shared/api/contract'\nexport const x = [z, calls]",
    ],
  ])('%s: allowed import passes', async (file, code) => {
    expect(await lint(file, code)).toEqual([])
  })
})
