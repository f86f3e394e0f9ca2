/**
 * The delivery thread (deliveryThread.ts, sendThread.ts): attempts signed and sent on a worker
 * thread verify with `standardwebhooks` at a real receiver; a thread that dies mid-delivery is
 * replaced and its event still arrives, once in the accepted set; a thread answering nonsense, or a
 * receiver answering without end, does not break the engine's side.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { getPriority } from 'node:os'
import { Writable } from 'node:stream'
import { threadId } from 'node:worker_threads'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { ManualClock } from '../../core/index.js'
import { createLogger } from '../../core/log.js'
import { systemResolver, type HostResolver } from '../../core/webhooks/urlGuard.js'
import { DeliveryThread, type DeliveryThreadOptions } from './deliveryThread.js'
import { MAX_ERROR_LENGTH, THREAD_NICE } from './threadProtocol.js'
import { checkOrderedAndComplete, WebhookReceiver } from './test/receiver.js'
import { startWebhookEngine } from './test/webhookEngine.js'

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`
const OLD_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`

const cleanup: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c()
})

const logged = () => {
  const lines: string[] = []
  const log = createLogger('info', new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) }))
  return { log, lines }
}

const thread = (options: Partial<DeliveryThreadOptions> = {}) => {
  const t = new DeliveryThread({ policy: { allowPrivateNetworks: true }, log: logged().log, ...options })
  cleanup.push(() => t.close())
  return t
}

const receiver = async () => {
  const r = await WebhookReceiver.start()
  cleanup.push(() => r.close())
  return r
}

const event = (id: string) => JSON.stringify({ id, type: 'webhook.test', timestamp: new Date().toISOString(), workspaceId: 'ws', resource: `webhook:${id}`, sequence: 1, data: {} })
const job = (url: string, eventId: string, secrets = [SECRET]) => ({ url, eventId, body: event(eventId), timestamp: Date.now(), secrets })

describe('the delivery thread', () => {
  it('signs on its own thread with standardwebhooks: a real receiver verifies every signature, with both secrets during a rotation', async () => {
    const r = await receiver()
    r.secrets.push(SECRET, OLD_SECRET)
    const seenOn: number[] = []
    const resolve: HostResolver = async (host) => {
      seenOn.push(threadId)
      return systemResolver(host)
    }
    const t = thread({ resolve })
    const hostUrl = r.url.replace('127.0.0.1', 'localhost')
    expect(await t.send(job(r.url, 'evt_1'))).toMatchObject({ result: 'success', status: 200, error: null })
    expect(await t.send(job(hostUrl, 'evt_2', [SECRET, OLD_SECRET]))).toMatchObject({ result: 'success', status: 200 })
    expect(t.threadId).not.toBeNull()
    expect(t.threadId).not.toBe(threadId)
    const [first, second] = r.requests.items
    expect(first!.verifiedBy).toEqual([0])
    expect(second!.verifiedBy).toEqual([0, 1])
    expect(r.accepted.items.map((e) => e.id)).toEqual(['evt_1', 'evt_2'])
    // A name is resolved by the engine's resolver (here, this thread), for the thread's SSRF check.
    expect(seenOn).toEqual([threadId])
  })

  it('runs THREAD_NICE steps nicer than the engine thread (Linux: nice per thread), the engine thread untouched', async () => {
    const r = await receiver()
    r.secrets.push(SECRET)
    const before = getPriority()
    // A thread of an earlier test (or of the runner) may end between the listing and the read: skip it.
    const statOf = (tid: string): string | null => {
      try {
        return readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
      } catch {
        return null
      }
    }
    const niceOf = () =>
      new Map(
        readdirSync('/proc/self/task').flatMap((tid) => {
          const stat = statOf(tid)
          return stat === null ? [] : [[tid, Number(stat.split(') ')[1]!.split(' ')[16])] as const]
        }),
      )
    const others = new Set(niceOf().keys())
    const t = thread()
    t.start()
    // Answered: the thread has run its module, which sets its priority first.
    expect(await t.send(job(r.url, 'evt_nice'))).toMatchObject({ result: 'success' })
    const added = [...niceOf()].filter(([tid]) => !others.has(tid)).map(([, nice]) => nice)
    expect(added).toContain(Math.min(19, before + THREAD_NICE))
    expect(getPriority()).toBe(before)
  })

  it('settles an answer with a 2xx status and an endless body by its status, without waiting for the timeout', async () => {
    let server: Server | undefined
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' })
      const chunk = Buffer.alloc(16 * 1024, 1)
      const more = () => {
        while (res.write(chunk));
        res.once('drain', more)
      }
      more()
    })
    cleanup.push(() => new Promise<void>((done) => (server!.closeAllConnections(), server!.close(() => done()))))
    await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done))
    const t = thread({ timeoutMs: 20_000 })
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
    expect(await t.send(job(url, 'evt_long'))).toMatchObject({ result: 'success', status: 200, error: null })
    expect(t.inFlight).toBe(0)
  })

  it('reads what the thread answers as data: malformed or oversized answers fail their attempt, unknown ones are ignored, a crash fails what was in flight', async () => {
    const { log, lines } = logged()
    const t = thread({ log, entry: new URL('./test/misbehavingThread.mjs', import.meta.url) })
    const send = (eventId: string) => t.send(job('http://127.0.0.1:9/hook', eventId))
    const malformed = { result: 'network_error', status: null, error: 'malformed outcome from the delivery thread' }
    expect(await send('not-an-object')).toMatchObject({ result: 'success', status: 204, latencyMs: 3 })
    expect(await send('unknown-result')).toMatchObject(malformed)
    expect(await send('success-without-2xx')).toMatchObject(malformed)
    expect(await send('bad-latency')).toMatchObject(malformed)
    const huge = await send('huge-error')
    expect(huge).toMatchObject({ result: 'http_error', status: 500 })
    expect(huge.error!.length).toBe(MAX_ERROR_LENGTH + 1)
    expect(await send('unknown-id')).toMatchObject({ result: 'timeout', status: null })
    expect(lines.filter((l) => l.includes('malformed message from the webhook delivery thread'))).toHaveLength(6)

    const before = t.threadId
    const [crashing, alongside] = await Promise.all([send('crash'), send('fine')])
    // The crash's job never answered; the job sent after it may have been answered before the crash.
    expect(crashing).toMatchObject({ result: 'network_error', status: null, error: expect.stringMatching(/^delivery thread ended \(exit code 1\)/) })
    expect(['success', 'network_error']).toContain(alongside.result)
    expect(t.threadId).toBeNull()
    // The next attempt starts a new thread.
    expect(await send('fine')).toMatchObject({ result: 'success', status: 200 })
    expect(t.threadId).not.toBe(before)
    expect(lines.some((l) => l.includes('webhook delivery thread ended'))).toBe(true)
  })

  it('hands the thread the attempts started in one turn in one message', async () => {
    const t = thread({ entry: new URL('./test/misbehavingThread.mjs', import.meta.url) })
    const send = () => t.send(job('http://127.0.0.1:9/hook', 'count'))
    // Each answer carries how many messages the thread had received by then.
    const first = await Promise.all([send(), send(), send(), send(), send(), send()])
    expect(first.map((o) => o.latencyMs)).toEqual([1, 1, 1, 1, 1, 1])
    const second = await Promise.all([send(), send(), send()])
    expect(second.map((o) => o.latencyMs)).toEqual([2, 2, 2])
  })

  it('ends a thread that holds an attempt past stallMs (a busy loop: its own timeout cannot fire), fails what it held, and starts a new one', async () => {
    const { log, lines } = logged()
    const t = thread({ log, entry: new URL('./test/misbehavingThread.mjs', import.meta.url), stallMs: 300 })
    const send = (eventId: string) => t.send(job('http://127.0.0.1:9/hook', eventId))
    expect(await send('fine')).toMatchObject({ result: 'success', status: 200 })
    const before = t.threadId
    expect(await send('busy-loop')).toMatchObject({ result: 'network_error', status: null, error: 'delivery thread stalled (no answer within 300 ms); ended' })
    expect(t.inFlight).toBe(0)
    expect(lines.some((l) => l.includes('webhook delivery thread stalled'))).toBe(true)
    expect(await send('fine')).toMatchObject({ result: 'success', status: 200 })
    expect(t.threadId).not.toBe(before)
  })

  it('in the engine: a thread that dies mid-delivery is replaced, the attempt counts as failed, and the event arrives once', async () => {
    const clock = new ManualClock(Date.now())
    const r = await receiver()
    const t = await startWebhookEngine({ clock })
    cleanup.push(() => t.stop())
    const ws = await t.workspaceWithEndpoint(r)
    // The receiver takes the first attempt and never answers it.
    r.respond = (req) => (req.attempt === 1 ? 'hold' : 204)
    ws.addClient('dev-1')
    ws.addClient('dev-2')
    await r.requests.next(() => r.requests.items.length >= 2)
    const first = t.plugin().thread!.threadId
    expect(t.worker().inFlightOf(ws.webhookId)).toBe(2)
    await t.plugin().thread!.kill()
    const failed = await t.attempts.next((a) => a.delivery.resource === 'client:dev-1')
    expect(failed.outcome).toMatchObject({ result: 'network_error', status: null, error: expect.stringMatching(/^delivery thread ended/) })
    expect(failed.state).toBe('pending')
    // The retry (5 s later on the engine clock) goes through a new thread and is accepted.
    await t.runRetries(clock, 60_000)
    await r.acceptedCount(2)
    expect(t.plugin().thread!.threadId).not.toBe(first)
    const byResource = checkOrderedAndComplete(r.accepted.items)
    expect([...byResource.keys()].sort()).toEqual(['client:dev-1', 'client:dev-2'])
    expect(r.requests.items.filter((q) => q.event.resource === 'client:dev-1').map((q) => q.attempt)).toEqual([1, 2])
    expect(t.worker().pendingCount).toBe(0)
    const metrics = await (await fetch(t.url('/metrics'))).text()
    expect(metrics).toMatch(/hark_webhook_threads_ended_total 1/)
  })
})
