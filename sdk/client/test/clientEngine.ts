/**
 * What the @hark/client tests run against: a real engine (WebSocket gateway with WebRTC
 * signalling, MQTT) on free ports with a seeded workspace, reached through a TCP relay on a port
 * of its own — as a load balancer would stand in front — so the engine can be restarted (same
 * data dir, new ports) while terminals keep one gateway URL. A terminal sees what it would see
 * of a restart: `server_shutting_down`, connections refused for a moment, then the same URL and
 * token working again. (The gateway itself cannot listen on its old port again for about a
 * minute after it closed sessions: uWebSockets.js listens without SO_REUSEADDR and the closed
 * connections sit in TIME_WAIT.)
 */
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net'
import { createEngine, type Engine, type EngineConfig } from '../../../core/index.js'
import { seedWorkspace, tempDir } from '../../../core/test/helpers.js'
import { mqttTransport } from '../../../transports/mqtt/extension.js'
import { webrtcTransport } from '../../../transports/webrtc/extension.js'
import { websocketTransport } from '../../../transports/websocket/extension.js'

const config = (dataDir: string): EngineConfig =>
  ({
    dataDir,
    extensions: [websocketTransport, webrtcTransport, mqttTransport],
    log: { level: 'silent' },
    rest: { port: 0 },
    storage: { changePollMs: 50 },
    gateway: { port: 0 },
    mqtt: { port: 0, tlsPort: null },
  }) as EngineConfig

/** A TCP relay to `target()`; a connection that finds no engine there is reset, as a refused one would be. */
const startRelay = async (target: () => number | null): Promise<{ server: Server; port: number; sockets: Set<Socket> }> => {
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const port = target()
    if (port === null) return void client.resetAndDestroy()
    const upstream = tcpConnect(port, '127.0.0.1')
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
    }
    // Whatever the engine wrote before its side went away still reaches the terminal (its close frame).
    client.on('error', () => upstream.destroy())
    upstream.on('error', () => client.end())
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as { port: number }).port, sockets }
}

export const startClientEngine = async () => {
  const dir = tempDir('hark-client-')
  let engine: Engine = createEngine(config(dir.path))
  await engine.start()
  let running = true
  const relay = await startRelay(() => (running ? engine.ports.gateway! : null))
  const seed = seedWorkspace(engine)
  const t = {
    get engine() {
      return engine
    },
    /** Bound to the first engine's storage: use before a restart. */
    seed,
    /** The gateway through the relay: the URL that survives a restart. */
    url: `https://127.0.0.1:${relay.port}`,
    /** The gateway itself (one hop less, for tests without a restart). */
    get direct() {
      return `https://127.0.0.1:${engine.ports.gateway!}`
    },
    ca: engine.host.tls.cert,
    issue: (clientId: string, ttl: number | null = null) => engine.host.security.tokens.issue(seed.workspaceId, clientId, ttl),
    token: async (clientId: string, ttl: number | null = null) => (await t.issue(clientId, ttl)).token,
    revoke: (jti: string) => engine.host.security.tokens.revoke(seed.workspaceId, jti),
    devicePassword: (clientId: string) => engine.host.security.devicePasswords.reset(seed.workspaceId, clientId).password,
    /** Stop the engine gracefully and start it again on the same data; the relay refuses connections meanwhile. */
    restart: async () => {
      running = false
      await engine.stop()
      engine = createEngine(config(dir.path))
      await engine.start()
      running = true
    },
    stop: async () => {
      for (const s of relay.sockets) s.destroy()
      await new Promise<void>((resolve) => relay.server.close(() => resolve()))
      await engine.stop()
      dir.remove()
    },
  }
  return t
}

export type ClientEngine = Awaited<ReturnType<typeof startClientEngine>>
