import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config'

/**
 * Test files run side by side, each in its own process with its own temp folders, ports from 0 and its own fake
 * servers. Most of their time is spent waiting on other processes (the CLI, git, bubblewrap, Chromium, the agent
 * CLIs), so more files than cores run at once. Measured for issue 35 on the 2-core machine (36 files: e2e,
 * integration, unit and renderer; 240 tests; the machine busy with other work, load 18-22): 1 worker 693 s,
 * 2 → 455 s, 3 → 396 s, 4 → 499 s (four files at once fight over the two cores: everything slows down).
 */
const WORKERS = 3

/**
 * Files that cannot share the machine, each with the reason: they run after all the others, one at a time (a
 * project with one worker is vitest's sequential group, which runs last). Fix a file rather than adding it here.
 */
const RUN_ALONE: Record<string, string> = {}

const alone = Object.keys(RUN_ALONE)

/** The core and the browser tests, in Node. */
const nodeProject = (
  name: string,
  include: string[],
  exclude: string[],
  fileParallelism = true,
): TestProjectInlineConfiguration => ({
  extends: true,
  test: {
    name,
    fileParallelism,
    include,
    exclude,
    environment: 'node',
    // Builds the CLI, the web host and the renderer once, so tests start the current sources.
    globalSetup: ['tests/global-setup.ts'],
    // Closes what a file shares among its tests (its Chromium) after the file.
    setupFiles: ['tests/helpers/fileSetup.ts'],
  },
})

// The core and the browser tests run in Node; the renderer's tests (components, hooks, routes) run in happy-dom,
// next to the code they test.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // A busy 2-core CI machine: a condition polled for is given time to come true (a second is the default).
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    maxWorkers: WORKERS,
    projects: [
      nodeProject('node', ['src/**/*.test.ts', 'tests/**/*.test.ts'], ['src/renderer/**', ...alone]),
      ...(alone.length > 0 ? [nodeProject('node-alone', alone, [], false)] : []),
      {
        extends: true,
        test: {
          name: 'renderer',
          include: ['src/renderer/**/*.test.{ts,tsx}'],
          environment: 'happy-dom',
          setupFiles: ['src/renderer/src/test/setup.ts'],
        },
      },
    ],
  },
})
