import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['{core,plugins,transports,agents,bench,test}/**/*.test.ts'],
    // **/node_modules/** also keeps out test/fixtures/*/node_modules/hark, a link back to this repository.
    exclude: ['**/node_modules/**', 'dist'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A failure must be real: no retries that would hide flakiness.
    retry: 0,
  },
})
