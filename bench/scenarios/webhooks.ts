/**
 * webhooks: what webhook delivery costs and how fast it is. The same Hark, the same seeded
 * terminals (rooms of 4), the same connect storm over WSS, with and without one webhook endpoint
 * registered: the headline is connects/s, so the ratio `hark ÷ hark-no-webhooks` is the connect
 * throughput kept with webhooks on (goal ≥ 0.9). With the endpoint, every terminal's connect and
 * disconnect and every room's start and finish becomes an event (client.connected,
 * client.disconnected, room.started, room.finished) POSTed to a receiving back end
 * (workers/webhookReceiver.ts, on the generator cores) that verifies each signature; after the
 * terminals have gone, the run waits for every event and reports events delivered per second and
 * the lag from each state change to its 2xx (p50/p99/max, in `extra` and the JSON). `extra` also
 * splits the server's CPU by thread (/proc/<pid>/task), for the storm (both sides) and the drain
 * after it: the engine's thread, the delivery thread, the WAL checkpoint thread, the helpers; and
 * per event delivered.
 */
import { CHECKPOINT_THREAD_NICE } from '../../core/storage/checkpointProtocol.js'
import { THREAD_NICE } from '../../plugins/webhooks/threadProtocol.js'
import type { Measurement } from '../scenario.js'
import { defineScenario, type MeasureContext } from '../scenario.js'
import { runConnectStorm } from '../generators/connections.js'
import { protocols } from '../generators/generator.js'
import { roomMembers } from '../generators/rooms.js'
import { generatorCpus, serverCpus } from '../harness/cores.js'
import { seededClient, startHark } from '../harness/hark.js'
import { decodeHistogram, summarize } from '../harness/histogram.js'
import { clockTicksPerSecond, readThreads, type ThreadTicks } from '../harness/proc.js'
import { benchModule } from '../harness/paths.js'
import { startWorker, type WorkerMessage } from '../harness/worker.js'
import { ROOM_SIZE, setupWsTerminals, type WsTerminalsFixture } from './wsTerminals.js'

const LOAD = { quick: 1000, full: 2000 }
/** Longest wait for the last event after the terminals have gone. */
const DRAIN_TIMEOUT_MS = 120_000
/** Loopback receivers need the setting; both sides run with the same flags. */
const HARK_ARGS = ['--webhooks-allow-private-networks', 'true']

/**
 * CPU of the server's threads between two readings, ms: the engine's thread (its id is the pid),
 * the webhook delivery thread (it runs THREAD_NICE above the engine), the WAL checkpoint thread
 * (CHECKPOINT_THREAD_NICE above), and the rest (V8's and libuv's helpers). A thread that ended
 * between the readings is left out.
 */
const threadCpuMs = (pid: number, before: Map<number, ThreadTicks>, after: Map<number, ThreadTicks>) => {
  const ms = (ticks: number) => (ticks * 1000) / clockTicksPerSecond()
  const engineNice = after.get(pid)?.nice ?? 0
  const out = { main: 0, delivery: 0, storage: 0, helpers: 0 }
  for (const [tid, t] of after) {
    const used = ms(t.ticks - (before.get(tid)?.ticks ?? 0))
    if (tid === pid) out.main += used
    else if (t.nice === Math.min(19, engineNice + THREAD_NICE)) out.delivery += used
    else if (t.nice === Math.min(19, engineNice + CHECKPOINT_THREAD_NICE)) out.storage += used
    else out.helpers += used
  }
  return out
}

/** A phase's thread CPU as `extra` fields: `<phase>MainCpuMs`, `<phase>DeliveryCpuMs`, `<phase>StorageCpuMs`, `<phase>HelpersCpuMs`. */
const cpuFields = (phase: string, cpu: ReturnType<typeof threadCpuMs>): Record<string, number> => ({
  [`${phase}MainCpuMs`]: cpu.main,
  [`${phase}DeliveryCpuMs`]: cpu.delivery,
  [`${phase}StorageCpuMs`]: cpu.storage,
  [`${phase}HelpersCpuMs`]: cpu.helpers,
})

const call = async (restUrl: string, apiKey: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${restUrl}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const json = (await res.json()) as Record<string, unknown>
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
  return json
}

/** Hark on the server core, with no webhook endpoint left over from an earlier run. */
const startClean = async (ctx: MeasureContext, f: WsTerminalsFixture) => {
  const hark = await startHark(ctx, { dataDir: f.seed.dataDir, cpus: serverCpus(ctx.cores), extraArgs: HARK_ARGS })
  const { webhooks } = (await call(hark.restUrl, f.seed.apiKey, 'GET', '/webhooks')) as { webhooks: Array<{ webhookId: string }> }
  for (const w of webhooks) await call(hark.restUrl, f.seed.apiKey, 'DELETE', `/webhooks/${w.webhookId}`)
  return hark
}

const storm = async (ctx: MeasureContext, f: WsTerminalsFixture, hark: Awaited<ReturnType<typeof startClean>>) =>
  runConnectStorm(ctx, {
    protocol: protocols.harkWs,
    target: { host: '127.0.0.1', port: hark.ports.gateway, options: {} },
    members: roomMembers({ rooms: Math.ceil(ctx.load / ROOM_SIZE), roomSize: ROOM_SIZE, talkersPerRoom: 0, clientOf: seededClient(f.seed) }).slice(0, ctx.load),
    serverPids: [hark.proc.pid],
  })

const withWebhooks = async (ctx: MeasureContext, f: WsTerminalsFixture): Promise<Measurement> => {
  const hark = await startClean(ctx, f)
  const receiver = startWorker(ctx.procs, {
    name: 'webhook-receiver',
    module: benchModule('workers/webhookReceiver'),
    cpus: generatorCpus(ctx.cores),
    logFile: ctx.logFile('webhook-receiver'),
  })
  receiver.send({ type: 'start' })
  const { port } = await receiver.next<WorkerMessage & { port: number }>('listening', 10_000)
  const created = await call(hark.restUrl, f.seed.apiKey, 'POST', '/webhooks', { url: `http://127.0.0.1:${port}/hooks` })
  receiver.send({ type: 'secret', secret: created.secret })
  await receiver.next('ready', 10_000)

  const pid = hark.proc.pid
  const atStart = readThreads(pid)
  const result = await storm(ctx, f, hark)
  const afterStorm = readThreads(pid)
  // Every terminal connected and went again; every room of 4 started and finished.
  const connected = result.extra.connected ?? 0
  const expected = 2 * connected + 2 * Math.ceil(connected / ROOM_SIZE)
  ctx.phase(`waiting for ${expected} webhook events`)
  receiver.send({ type: 'await', count: expected, timeoutMs: DRAIN_TIMEOUT_MS })
  const r = await receiver.next<WorkerMessage & {
    count: number; badSignatures: number; duplicates: number; firstMs: number; lastMs: number; histogram: string
  }>('report', DRAIN_TIMEOUT_MS + 10_000)
  const afterDrain = readThreads(pid)
  const lag = summarize(decodeHistogram(r.histogram))
  const seconds = Math.max(0.001, (r.lastMs - r.firstMs) / 1000)
  const whole = threadCpuMs(pid, atStart, afterDrain)
  const perEvent = (ms: number) => (r.count > 0 ? (ms * 1000) / r.count : Number.NaN)
  return {
    ...result,
    extra: {
      ...result.extra,
      ...cpuFields('storm', threadCpuMs(pid, atStart, afterStorm)),
      ...cpuFields('drain', threadCpuMs(pid, afterStorm, afterDrain)),
      // The whole run (storm and drain) per event delivered: with the storm's own cost in it; the
      // webhooks' share is this side's storm CPU less the other side's.
      mainCpuUsPerEvent: perEvent(whole.main),
      deliveryCpuUsPerEvent: perEvent(whole.delivery),
      storageCpuUsPerEvent: perEvent(whole.storage),
      helpersCpuUsPerEvent: perEvent(whole.helpers),
      webhookEventsExpected: expected,
      webhookEventsDelivered: r.count,
      webhookBadSignatures: r.badSignatures,
      webhookDuplicates: r.duplicates,
      webhookEventsPerSecond: r.count / seconds,
      webhookDeliverySeconds: seconds,
      webhookLagP50Ms: lag?.p50Ms ?? Number.NaN,
      webhookLagP99Ms: lag?.p99Ms ?? Number.NaN,
      webhookLagMaxMs: lag?.maxMs ?? Number.NaN,
    },
  }
}

export default defineScenario<WsTerminalsFixture>({
  name: 'webhooks',
  description:
    'WSS connect storm with one webhook endpoint (every connect, disconnect, room start and finish delivered, signed and verified) vs the same Hark without; extra: events/s and lag state change → 2xx',
  unit: 'connects/s',
  higherIsBetter: true,
  goal: { ratios: { 'hark-no-webhooks': 0.9 }, text: 'connect throughput with webhooks ≥ 0.9× without' },
  load: { ...LOAD, unit: 'terminals' },
  setup: (ctx) => setupWsTerminals(ctx, LOAD),
  hark: {
    name: 'hark',
    label: 'Hark with one webhook endpoint (receiver verifies every signature)',
    measure: withWebhooks,
  },
  peers: [
    {
      name: 'hark-no-webhooks',
      label: 'the same Hark without a webhook endpoint',
      measure: async (ctx, f) => {
        const hark = await startClean(ctx, f)
        const atStart = readThreads(hark.proc.pid)
        const result = await storm(ctx, f, hark)
        return { ...result, extra: { ...result.extra, ...cpuFields('storm', threadCpuMs(hark.proc.pid, atStart, readThreads(hark.proc.pid))) } }
      },
    },
  ],
})
