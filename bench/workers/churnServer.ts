/**
 * The server side of churn-memory: Hark (the default engine config, as `hark start` runs it) or the
 * bare peer (peers/churnPeer.ts) in a process started with --expose-gc, answering the runner's
 * `measure` with its memory after a full collection, so figures taken between churn stages are
 * what the process keeps, not garbage it has not collected yet.
 *
 * Usage: node --expose-gc dist/bench/workers/churnServer.js --side hark --data DIR --ports REST,GATEWAY,MQTT
 *        node --expose-gc dist/bench/workers/churnServer.js --side peer --ports GATEWAY,MQTT --cert F --key F
 * IPC: → ready {gateway, mqtt}; measure → memory {rssBytes, heapUsedBytes, …}; snapshot {file} → snapshot {file}.
 */
import { getActiveResourcesInfo } from 'node:process'
import { parseArgs } from 'node:util'
import { writeHeapSnapshot } from 'node:v8'
import { serveWorker, type WorkerMessage } from '../harness/worker.js'

const { values } = parseArgs({
  options: {
    side: { type: 'string' },
    data: { type: 'string' },
    ports: { type: 'string' },
    cert: { type: 'string' },
    key: { type: 'string' },
  },
})
const ports = (values.ports ?? '').split(',').map(Number)
const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('churnServer needs --expose-gc')

/** What this process holds after a full collection (several: finalizers and weak callbacks free more on the next). */
const memory = async (): Promise<WorkerMessage> => {
  // What an outside probe sees (garbage included), then what the process keeps.
  const rssBeforeGcBytes = process.memoryUsage.rss()
  for (let i = 0; i < 4; i++) {
    gc()
    await new Promise((resolve) => setImmediate(resolve))
  }
  const m = process.memoryUsage()
  const handles: Record<string, number> = {}
  for (const kind of getActiveResourcesInfo()) handles[kind] = (handles[kind] ?? 0) + 1
  return {
    type: 'memory',
    rssBeforeGcBytes,
    rssBytes: m.rss,
    heapUsedBytes: m.heapUsed,
    heapTotalBytes: m.heapTotal,
    externalBytes: m.external,
    arrayBuffersBytes: m.arrayBuffers,
    timeouts: handles.Timeout ?? 0,
    tcpHandles: handles.TCPSocketWrap ?? 0,
  }
}

const start = async (): Promise<{ stop: () => Promise<void>; gateway: number; mqtt: number }> => {
  if (values.side === 'peer') {
    const { startChurnPeer } = await import('../peers/churnPeer.js')
    return startChurnPeer({ gatewayPort: ports[0]!, mqttPort: ports[1]!, cert: values.cert!, key: values.key! })
  }
  if (values.side !== 'hark' || !values.data) throw new Error('--side hark --data DIR, or --side peer')
  const [{ createEngine }, { default: config }] = await Promise.all([import('../../core/engine.js'), import('../../engine.config.js')])
  const engine = createEngine({
    ...config,
    dataDir: values.data,
    host: '127.0.0.1',
    log: { level: 'warn', format: 'json' },
    rest: { ...config.rest, port: ports[0]! },
    gateway: { port: ports[1]! },
    mqtt: { port: ports[2]!, tlsPort: null },
    // The web console is not under test: it stays off (and off any port another process holds).
    console: { enabled: false },
  })
  await engine.start()
  return { stop: () => engine.stop(), gateway: engine.ports.gateway!, mqtt: engine.ports.mqtt! }
}

let server: Awaited<ReturnType<typeof start>> | null = null
const send = serveWorker({
  deadlineMs: 60 * 60_000,
  onMessage: async (m, reply) => {
    if (m.type === 'measure') reply(await memory())
    else if (m.type === 'snapshot') reply({ type: 'snapshot', file: writeHeapSnapshot(String(m.file)) })
  },
  onStop: () => server?.stop(),
})
server = await start()
send({ type: 'ready', gateway: server.gateway, mqtt: server.mqtt })
