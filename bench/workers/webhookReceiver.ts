/**
 * webhooks scenario: the receiving back end. An HTTP server on 127.0.0.1 (a free port) that
 * verifies every request with the `standardwebhooks` package, answers 204, and records the lag
 * from the event's own timestamp (the state change, engine wall clock) to its arrival here — the
 * 2xx follows at once — in an HDR histogram (ms resolution: the timestamp has milliseconds).
 * IPC: start → listening {port}; secret {secret}; await {count, timeoutMs} → report {count,
 * badSignatures, firstMs, lastMs, histogram} once `count` events arrived or the time is up.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { createLatencyHistogram, encodeHistogram, recordUs } from '../harness/histogram.js'
import { serveWorker, type WorkerMessage } from '../harness/worker.js'

let webhook: Webhook | null = null
let count = 0
let badSignatures = 0
let firstMs = 0
let lastMs = 0
const ids = new Set<string>()
let duplicates = 0
const histogram = createLatencyHistogram()
let waiter: { count: number; resolve: () => void } | null = null

const server = createServer((req, res) => {
  const chunks: Buffer[] = []
  req.on('data', (c: Buffer) => chunks.push(c))
  req.on('end', () => {
    const now = Date.now()
    const raw = Buffer.concat(chunks).toString()
    try {
      webhook!.verify(raw, req.headers as Record<string, string>)
    } catch {
      badSignatures++
      res.writeHead(401).end()
      return
    }
    const event = JSON.parse(raw) as { id: string; timestamp: string }
    res.writeHead(204).end()
    if (ids.has(event.id)) {
      duplicates++
      return
    }
    ids.add(event.id)
    count++
    if (firstMs === 0) firstMs = now
    lastMs = now
    recordUs(histogram, Math.max(0, now - Date.parse(event.timestamp)) * 1000)
    if (waiter && count >= waiter.count) waiter.resolve()
  })
})

const report = () => ({ type: 'report', count, badSignatures, duplicates, firstMs, lastMs, histogram: encodeHistogram(histogram) })

serveWorker({
  deadlineMs: 15 * 60_000,
  onMessage: async (m: WorkerMessage, send) => {
    if (m.type === 'start') {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      send({ type: 'listening', port: (server.address() as AddressInfo).port })
    } else if (m.type === 'secret') {
      webhook = new Webhook(m.secret as string)
      send({ type: 'ready' })
    } else if (m.type === 'await') {
      const want = m.count as number
      if (count < want) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, m.timeoutMs as number)
          waiter = { count: want, resolve: () => (clearTimeout(timer), resolve()) }
        })
        waiter = null
      }
      send(report())
    }
  },
  onStop: () => {
    server.closeAllConnections()
    server.close()
  },
})
