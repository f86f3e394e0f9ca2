/**
 * The engine as a composition of layers: a layer that fails to build stops the start with its
 * tagged error (the one line `hark start` prints), and everything the layers before it acquired is
 * released — the REST listener is closed, a transport already started is stopped, the database is
 * closed (another engine opens the same data dir at once).
 */
import { createServer, type Server } from 'node:net'
import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { ListenError } from './transport.js'
import { ClusterJoinError } from './startupErrors.js'
import { defineTransport, services, type Listeners } from './index.js'
import { createTestEngine, tempDir } from './test/helpers.js'

/** A port held by a plain TCP listener, on the host the test engines use. */
const holdPort = async (): Promise<{ port: number; server: Server }> => {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { port: (server.address() as { port: number }).port, server }
}

/** Whether something accepts connections on the port (resolves on connect or refusal, never on a timer). */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port })
    socket.once('connect', () => (socket.destroy(), resolve(true)))
    socket.once('error', () => resolve(false))
  })

/** A transport that binds a port (the one given: maybe in use), reporting it as a ListenError as the built-ins do. */
const binding = (name: string, port: () => number, log: string[]) =>
  defineTransport(name, (resolve) => {
    const listeners: Listeners = resolve(services.listeners)
    const server = createServer()
    return {
      start: () =>
        new Promise<void>((ok, fail) => {
          server.once('error', (e) => fail(new ListenError(name, '127.0.0.1', port(), `${name}.port`, e)))
          server.listen(port(), '127.0.0.1', () => {
            log.push(`${name} start`)
            listeners.listening(name, (server.address() as { port: number }).port)
            ok()
          })
        }),
      stop: async () => {
        log.push(`${name} stop`)
        await new Promise<void>((done) => server.close(() => done()))
      },
    }
  })

describe('the engine as layers', () => {
  it('a listener that cannot bind fails the start with its ListenError, and what the layers before it acquired is released', async () => {
    const held = await holdPort()
    const dir = tempDir()
    const log: string[] = []
    try {
      const engine = createTestEngine({
        dataDir: dir.path,
        extensions: [binding('first', () => 0, log), binding('second', () => held.port, log)],
      })
      const failure = await engine.start().then(
        () => null,
        (e: unknown) => e,
      )
      expect(failure).toBeInstanceOf(ListenError)
      expect(failure).toMatchObject({ _tag: 'ListenError', listener: 'second', port: held.port, setting: 'second.port', hostProblem: false })
      expect((failure as Error).message).toBe(`cannot listen on 127.0.0.1:${held.port} (second): address already in use`)
      expect(engine.state).toBe('stopped')
      // The REST server had listened, and the first transport had started: both are gone.
      const rest = engine.ports.rest!
      const first = engine.ports.first!
      expect(rest).toBeGreaterThan(0)
      expect(await accepts(rest)).toBe(false)
      expect(await accepts(first)).toBe(false)
      expect(log).toEqual(['first start', 'first stop'])
      // The database was closed: another engine starts on the same data dir.
      const again = createTestEngine({ dataDir: dir.path })
      await again.start()
      await again.stop()
    } finally {
      held.server.close()
      dir.remove()
    }
  })

  it('a cluster that cannot be joined (no cluster extension) fails with ClusterJoinError after the REST listener was up, and closes it', async () => {
    const dir = tempDir()
    try {
      const engine = createTestEngine({ dataDir: dir.path, cluster: { natsUrl: 'nats://127.0.0.1:4222' } })
      const failure = await engine.start().then(
        () => null,
        (e: unknown) => e,
      )
      expect(failure).toBeInstanceOf(ClusterJoinError)
      expect(failure).toMatchObject({ _tag: 'ClusterJoinError', natsUrl: 'nats://127.0.0.1:4222' })
      expect((failure as Error).message).toBe('cluster.natsUrl is set, but the engine config registers no cluster extension (engine.config.ts: natsCluster)')
      expect(engine.ports.rest).toBeGreaterThan(0)
      expect(await accepts(engine.ports.rest!)).toBe(false)
    } finally {
      dir.remove()
    }
  })
})
