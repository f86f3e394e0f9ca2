import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['{core,cli,plugins,transports,agents,bench,cluster,servers,test,sdk}/**/*.test.ts'],
    // **/node_modules/** also keeps out test/fixtures/*/node_modules/hark, a link back to this repository.
    exclude: ['**/node_modules/**', 'dist'],
    pool: 'forks',
    // Two files at once. vitest's default on 2 cores is one (CPUs - 1), which leaves a core idle
    // whenever a file waits on what it started: hark processes, Chromium, sqld, NATS, provider
    // workers, sockets.
    maxWorkers: 2,
    // Files share their worker process and its module cache (no fresh process per file): each file
    // paid ~1.2 s of module loading before (the engine imports effect, fastify, jose, werift…),
    // 230 s of the suite's time summed over both workers. Files clean up what they start (engines,
    // sockets, timers: afterEach/afterAll); none mocks modules or leaves globals changed.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A failure must be real: no retries that would hide flakiness.
    retry: 0,
  },
})
