/**
 * What one relay link message costs over TCP and over the Unix socket (spec/cluster.md, The relay
 * link): this process dials a listener in a child process with the engine's own link classes
 * (cluster/nats/relayLink.ts) and writes `--rate` messages a second of `--bytes` bytes each, one
 * write per message, for `--seconds`; the CPU of each side (process.cpuUsage) is divided by the
 * messages. Rounds alternate TCP and Unix so a noisy machine weighs on both; prints one JSON line
 * per round and a summary with the medians. Both transports run side by side in the same run, the
 * TCP link being the peer. Run it under `taskset -c 0` to put both processes on one core, as
 * `hark start --nodes N` does on the bench machine (children inherit the affinity).
 * Usage: node dist/bench/linkCost.js [--rate 5000] [--bytes 300] [--seconds 5] [--rounds 3]
 */
import { fork, type ChildProcess } from 'node:child_process'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { pino } from 'pino'
import { LinkListener, LinkSender, type LinkSink } from '../cluster/nats/relayLink.js'
import { RELAY_HEADER_BYTES, RELAY_LENGTH_BYTES } from '../cluster/nats/wire.js'

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const quiet = pino({ level: 'silent' })

interface Ready {
  readonly address: string
  readonly local: string | null
}
interface Done {
  readonly messages: number
  readonly cpuUs: number
}

if (process.argv[2] === '--listener') {
  // The receiving node: counts messages; on 'stop', reports its CPU since 'start'.
  let messages = 0
  let from = process.cpuUsage()
  const sink: LinkSink = { linkIn: () => void messages++, linkMalformed: () => {} }
  const listener = new LinkListener(sink)
  const address = await listener.listen('127.0.0.1')
  const local = await listener.listenLocal()
  process.on('message', (m: string) => {
    if (m === 'start') {
      messages = 0
      from = process.cpuUsage()
    } else if (m === 'stop') {
      const u = process.cpuUsage(from)
      process.send!({ messages, cpuUs: u.user + u.system } satisfies Done)
    } else {
      listener.close()
      process.exit(0)
    }
  })
  process.send!({ address, local } satisfies Ready)
} else {
  const rate = arg('rate', 5000)
  const bytes = arg('bytes', 300)
  const seconds = arg('seconds', 5)
  const rounds = arg('rounds', 3)
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--listener'])
  const next = <T>(): Promise<T> => new Promise((resolve) => child.once('message', (m) => resolve(m as T)))
  const ready = await next<Ready>()
  if (ready.local === null) console.log(JSON.stringify({ note: 'no abstract Unix socket here: TCP only' }))
  // One relay message of `bytes` (one frame), with its length in front, as an outbox hands it to the link.
  const framed = new Uint8Array(RELAY_LENGTH_BYTES + bytes)
  new DataView(framed.buffer).setUint32(0, bytes)
  new DataView(framed.buffer).setUint16(RELAY_LENGTH_BYTES + 6, bytes - RELAY_HEADER_BYTES)

  const round = async (via: 'tcp' | 'unix') => {
    let up: () => void = () => {}
    const sender = new LinkSender('bench', 'peer', quiet, () => up())
    await new Promise<void>((resolve) => {
      up = resolve
      sender.dial(ready.address, via === 'unix' ? ready.local : null)
    })
    child.send('start')
    const from = process.cpuUsage()
    const perTick = Math.max(1, Math.round(rate / 1000))
    const total = rate * seconds
    let sent = 0
    await new Promise<void>((resolve) => {
      // Every millisecond (Node's timer), rate/1000 messages, each its own write as an outbox's would be.
      const timer = setInterval(() => {
        for (let i = 0; i < perTick && sent < total; i++, sent++) sender.send(framed.slice())
        if (sent >= total) {
          clearInterval(timer)
          resolve()
        }
      }, 1)
    })
    const u = process.cpuUsage(from)
    // Wait until the listener has read every message, then ask for its figures.
    let done: Done
    do {
      await new Promise((r) => setTimeout(r, 20))
      child.send('stop')
      done = await next<Done>()
    } while (done.messages < sent)
    const local = sender.isLocal
    sender.close()
    const line = {
      via,
      local,
      messages: sent,
      senderUsPerMessage: +((u.user + u.system) / sent).toFixed(2),
      receiverUsPerMessage: +(done.cpuUs / sent).toFixed(2),
      loadAverage: +loadavg()[0]!.toFixed(2),
    }
    console.log(JSON.stringify(line))
    return line
  }

  const results: Array<Awaited<ReturnType<typeof round>>> = []
  for (let r = 0; r < rounds; r++) {
    results.push(await round('tcp'))
    if (ready.local !== null) results.push(await round('unix'))
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  const summary = Object.fromEntries(
    (['tcp', 'unix'] as const).map((via) => {
      const rs = results.filter((x) => x.via === via)
      return [via, rs.length ? { senderUsPerMessage: median(rs.map((x) => x.senderUsPerMessage)), receiverUsPerMessage: median(rs.map((x) => x.receiverUsPerMessage)) } : null]
    }),
  )
  console.log(JSON.stringify({ summary, rate, bytes, seconds, rounds }))
  child.send('exit')
}
