import { defineConfig } from 'vitest/config'

// End-to-end suites drive a real browser (and Electron where it exists) against the built app.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
