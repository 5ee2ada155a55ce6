import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import renderer from './vite.renderer.config'

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: { input: { index: resolve(import.meta.dirname, 'src/main/electron/main.ts') } },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(import.meta.dirname, 'src/preload/index.ts') },
        // Sandboxed preloads must be CommonJS in one file.
        output: { format: 'cjs', entryFileNames: '[name].cjs', inlineDynamicImports: true },
      },
      externalizeDeps: false,
    },
  },
  renderer: { ...renderer, build: { ...renderer.build } },
})
