/**
 * CPU of the engine's thread per terminal connect and disconnect (issue 39 item 2), measured in a
 * way a loaded machine cannot swamp as much as wall-clock rates: the engine runs in this process
 * (WebSocket transport, a real libSQL file) and its CPU time (`process.cpuUsage()`) is read around
 * each round; real `ws` clients run in a child process (workers/connectCostClients.ts), 64 at a
 * time, each opening WSS with its own token, waiting for its `session` event, and later closing.
 * A round is N connects (CPU → `connectUs` per connect) then N disconnects until every session
 * ended on the server (→ `cycleUs` per connect + disconnect); the first round warms up. Prints one
 * JSON line with the medians and every round, and `retries`: connects that failed (a handshake a
 * loaded machine lost) and were made again, their cost counted in the round. Compare builds by running each build's copy in turn.
 * Usage: node dist/bench/connectCost.js [N per round, default 500] [rounds, default 4]
 */
import { fork } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createEngine } from '../core/index.js'
import { websocketTransport } from '../transports/websocket/index.js'
import type { ClientsRequest } from './workers/connectCostClients.js'

const N = Number(process.argv[2] ?? 500)
const rounds = Number(process.argv[3] ?? 4)
const dir = mkdtempSync(join(tmpdir(), 'hark-connect-cost-'))
const engine = createEngine({ dataDir: dir, log: { level: 'silent' }, rest: { port: 0 }, gateway: { port: 0 }, extensions: [websocketTransport] })
await engine.start()
const { security, storage, clock, terminals } = engine.host
const { workspaceId } = security.createWorkspace('bench')
const tokens: string[] = []
for (let i = 0; i < N; i++) {
  const clientId = `c${i}`
  const now = clock.now()
  const client = {
    workspaceId, clientId, name: null, kind: null, room: `r${i % 50}`, ephemeral: false,
    expiresAt: null, tokensNotBefore: now, createdAt: now, updatedAt: now,
  }
  storage.transaction(() => {
    storage.clients.insert(client)
    storage.feed.record({ kind: 'client.created', workspaceId, subject: clientId, at: now, client })
  })
  tokens.push((await security.tokens.issue(workspaceId, clientId, null)).token)
}
let ended = 0
let waiting: { until: number; resolve: () => void } | null = null
terminals.on('session.ended', () => {
  ended++
  if (waiting !== null && ended >= waiting.until) waiting.resolve()
})
const child = fork(new URL('./workers/connectCostClients.js', import.meta.url), [], { stdio: 'inherit', execArgv: [] })
let retries = 0
const ask = (request: ClientsRequest) =>
  new Promise<void>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the clients' process exited (${code}) during ${request.type}`))
    child.once('exit', onExit)
    child.once('message', (m: { retries: number }) => {
      child.off('exit', onExit)
      retries = m.retries
      resolve()
    })
    child.send(request)
  })
const cpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
await ask({ type: 'init', url: `wss://127.0.0.1:${engine.ports.gateway}/v1/connect?token=`, tokens, ca: engine.host.tls.cert })
const runs: Array<{ connectUs: number; cycleUs: number }> = []
for (let r = 0; r <= rounds; r++) {
  const c0 = cpuMs()
  await ask({ type: 'connect' })
  const c1 = cpuMs()
  const allEnded = new Promise<void>((resolve) => (waiting = { until: ended + N, resolve }))
  await ask({ type: 'close' })
  await allEnded
  const c2 = cpuMs()
  if (r > 0) runs.push({ connectUs: Math.round(((c1 - c0) * 1000) / N), cycleUs: Math.round(((c2 - c0) * 1000) / N) })
}
child.kill()
await engine.stop()
rmSync(dir, { recursive: true, force: true })
const median = (k: 'connectUs' | 'cycleUs') => runs.map((x) => x[k]).sort((a, b) => a - b)[Math.floor(runs.length / 2)]
console.log(JSON.stringify({ N, rounds, connectUs: median('connectUs'), cycleUs: median('cycleUs'), runs, retries, load: loadavg()[0] }))
process.exit(0)
