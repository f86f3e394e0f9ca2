import { defineConfig } from 'vitest/config'

/**
 * Files that need a process of their own: agents with real audio and provider workers (their start
 * and barge-in timing must not share an event loop and heap with what earlier files left), the
 * multi-process cluster tests (and `hark start --nodes 2`'s), and churn.test, which counts the live objects of the whole process.
 */
const OWN_PROCESS = ['agents/**/*.test.ts', 'cluster/**/*.test.ts', 'cli/nodes*.test.ts', 'transports/churn.test.ts']

export default defineConfig({
  test: {
    // **/node_modules/** also keeps out test/fixtures/*/node_modules/hark, a link back to this repository.
    exclude: ['**/node_modules/**', 'dist'],
    pool: 'forks',
    // Two files at once. vitest's default on 2 cores is one (CPUs - 1), which leaves a core idle
    // whenever a file waits on what it started: hark processes, Chromium, sqld, NATS, provider
    // workers, sockets.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A failure must be real: no retries that would hide flakiness.
    retry: 0,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['{core,cli,plugins,transports,bench,servers,test,sdk}/**/*.test.ts'],
          exclude: ['**/node_modules/**', 'dist', ...OWN_PROCESS],
          // Files share their worker process and its module cache: each file paid ~1.2 s of module
          // loading in a fresh process (effect, fastify, jose, werift…), 230 s of a full run summed
          // over both workers. Files clean up what they start (engines, sockets, timers); none mocks
          // modules or leaves globals changed.
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'own-process', include: OWN_PROCESS, isolate: true },
      },
    ],
  },
})
