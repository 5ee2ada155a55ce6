import { defineConfig } from 'vitest/config'

// Two projects: the core and the browser tests run in Node; the renderer's tests (components, hooks, routes) run
// in happy-dom, next to the code they test.
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // A busy 2-core CI machine: a condition polled for is given time to come true (a second is the default).
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['src/**/*.test.ts', 'tests/**/*.test.ts'],
          exclude: ['src/renderer/**'],
          environment: 'node',
          // Builds the renderer once, so browser tests serve the current sources.
          globalSetup: ['tests/global-setup.ts'],
          // Closes what a file shares among its tests (its Chromium) after the file.
          setupFiles: ['tests/helpers/fileSetup.ts'],
        },
      },
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
