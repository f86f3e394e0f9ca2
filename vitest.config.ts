import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['{core,cli,plugins,transports,agents,bench,cluster,servers,test,sdk}/**/*.test.ts'],
    // **/node_modules/** also keeps out test/fixtures/*/node_modules/hark, a link back to this repository.
    exclude: ['**/node_modules/**', 'dist'],
    pool: 'forks',
    // Two files at once. vitest's default on 2 cores is one (CPUs - 1), which leaves a core idle
    // whenever a file waits on what it started: hark processes, Chromium, sqld, NATS, provider
    // workers, sockets. Each file still runs in a process of its own (isolation unchanged).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A failure must be real: no retries that would hide flakiness.
    retry: 0,
  },
})
