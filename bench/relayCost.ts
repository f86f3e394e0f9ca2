/**
 * What a frame costs on its way between two nodes, by how many frames share a NATS message
 * (spec/cluster.md, Frames between nodes): a NATS server on loopback (servers/nats.ts), a sending
 * connection with the relay outbox (cluster/nats/wire.ts) and a receiving one that walks each
 * message as a node does. Per step, `frames` frames of 100 bytes are sent, `perMessage` of them
 * per outbox flush (what one event-loop turn, or one relay latency budget, gathers), and the
 * receiver is awaited; CPU of this process (both sides) and of nats-server is divided by the
 * frames. Prints one JSON line per batch size. A standalone figure: no peer runs beside it.
 * Usage: node dist/bench/relayCost.js [frames per batch size, default 100000]
 */
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { connect } from '@nats-io/transport-node'
import { readRelayMessage, RELAY_LENGTH_BYTES, RelayOutbox } from '../cluster/nats/wire.js'
import { WriteBatch } from '../core/dataplane/writeBatch.js'
import { startNats } from '../servers/nats.js'

const frames = Number(process.argv[2] ?? 100_000)
const nats = await startNats()
const tx = await connect({ servers: nats.url })
const rx = await connect({ servers: nats.url })

/** utime + stime of a process in ms (clock ticks of 10 ms). */
const procCpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}
const selfCpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

let received = 0
let delivered = 0
let wanted = 0
let done: (() => void) | null = null
const sink = (_key: number, uplink: Uint8Array) => {
  delivered += uplink.length > 0 ? 1 : 0
}
rx.subscribe('hark.audio.b.a', {
  callback: (_err, msg) => {
    received += readRelayMessage(msg.data, sink)
    if (received >= wanted && done) done()
  },
})
await rx.flush()

const batch = new WriteBatch()
const outbox = new RelayOutbox((framed) => tx.publish('hark.audio.b.a', framed.subarray(RELAY_LENGTH_BYTES)), batch)
const uplink = new Uint8Array(100).fill(7)
uplink[0] = 0x80 | 20

const run = async (perMessage: number) => {
  received = 0
  delivered = 0
  wanted = frames
  const finished = new Promise<void>((resolve) => (done = resolve))
  const cpu0 = selfCpuMs()
  const nats0 = procCpuMs(nats.pid)
  const t0 = performance.now()
  let sent = 0
  // One turn per batch: `perMessage` frames appended, flushed by the batch at the end of the turn.
  while (sent < frames) {
    for (let i = 0; i < perMessage && sent < frames; i++, sent++) outbox.append(1, 1 + (i % 4), uplink)
    await new Promise<void>((resolve) => setImmediate(resolve))
    // Keep at most ~2000 frames in flight, as a real-time sender would.
    while (sent - received > 2000) await new Promise<void>((resolve) => setImmediate(resolve))
  }
  await finished
  await tx.flush()
  const wallMs = performance.now() - t0
  const nodesUs = ((selfCpuMs() - cpu0) * 1000) / frames
  const natsUs = ((procCpuMs(nats.pid) - nats0) * 1000) / frames
  return { perMessage, frames, delivered, wallMs: Math.round(wallMs), nodesCpuUsPerFrame: +nodesUs.toFixed(2), natsCpuUsPerFrame: +natsUs.toFixed(2) }
}

await run(1) // warm-up
for (const k of [1, 2, 4, 8, 16]) console.log(JSON.stringify({ ...(await run(k)), loadavg1: +loadavg()[0]!.toFixed(1) }))
await tx.close()
await rx.close()
await nats.stop()
