// Terminals that talk at their nominal rate from a process of their own, so that they keep time
// while the engine's process is busy (transports/websocket/overload.test.ts).
// argv: url caFile seconds token... — each token connects, waits for its `session` event, and
// sends 50 frames/s (a V|level byte and a 2-byte Opus packet: the frame's number) for `seconds`.
// Prints "ready" once all have their session, starts on a line from stdin, prints "sent <n>" when
// all frames are out and the sockets closed, and exits.
import { readFileSync } from 'node:fs'
import WebSocket from 'ws'

const [url, caFile, seconds, ...tokens] = process.argv.slice(2)
const ca = readFileSync(caFile, 'utf8')
const frames = Math.round(Number(seconds) * 50)

const open = (token) =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url}?token=${encodeURIComponent(token)}`, { ca, perMessageDeflate: false })
    ws.on('message', (data, binary) => {
      if (!binary && JSON.parse(String(data)).type === 'session') resolve(ws)
    })
    ws.once('error', reject)
  })

const sockets = await Promise.all(tokens.map(open))
process.stdout.write('ready\n')
await new Promise((resolve) => process.stdin.once('data', resolve)) // "go"
const start = performance.now()
let n = 0
await new Promise((resolve) => {
  const next = () => {
    for (const ws of sockets) ws.send(Uint8Array.of(0x80 | 20, n & 0xff, n >> 8), { binary: true })
    n++
    if (n === frames) return resolve()
    setTimeout(next, Math.max(0, start + n * 20 - performance.now()))
  }
  next()
})
// A close goes out after the frames queued before it.
await Promise.all(sockets.map((ws) => new Promise((resolve) => (ws.once('close', resolve), ws.close()))))
process.stdout.write(`sent ${frames}\n`)
process.exit(0)
