import react from '@vitejs/plugin-react'
import { resolve } from 'node:path'
import { defineConfig } from 'vite'

// One renderer config for both hosts: electron-vite uses it for the desktop app, and `npm run web` builds with it.
// base './' lets Electron load the files from disk; routes live in the hash, so the web host serves one path.
export default defineConfig({
  root: resolve(import.meta.dirname, 'src/renderer'),
  base: './',
  plugins: [react()],
  build: {
    outDir: resolve(import.meta.dirname, 'out/renderer'),
    emptyOutDir: true,
    chunkSizeWarningLimit: 4096,
  },
})
