import '@testing-library/jest-dom/vitest'
import { cleanup, configure } from '@testing-library/react'
import { afterEach } from 'vitest'

// findBy* and waitFor poll for a condition: on a busy 2-core CI machine running several test files at once, a
// second (the default) is too short for a component to render (as vitest.config.ts's expect.poll timeout).
configure({ asyncUtilTimeout: 15_000 })

afterEach(() => {
  cleanup()
  localStorage.clear()
  window.location.hash = ''
})
