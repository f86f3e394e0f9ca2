/**
 * xiaozhi-devices: emulated xiaozhi-esp32 devices over the TLS gateway (firmware headers, hello,
 * 60 ms Opus frames), each in its own room with an echo agent (the room's default agent, echo with
 * `prerollMs: 0`, dispatched when the device joins), in a speak/reply cycle
 * (bench/workers/xiaozhiDevices.ts). Headline: devices per
 * core — devices ÷ the server's CPU share of one core while they all talk and hear their replies
 * (the server process holds the engine and the echo agents: decoding, segmenting, encoding and
 * pacing each reply). Latency: `listen stop` sent → first reply packet received, the engine's added
 * latency (the echo answers at the end of a turn and waits for nothing; loopback and TLS both ways
 * included). No peer: the xiaozhi servers are Python, and PyPI is out of reach here.
 */
import { join } from 'node:path'
import { generatorCpus, serverCpus } from '../harness/cores.js'
import { monotonicUs } from '../harness/clock.js'
import { seedHark, startHark, type HarkSeed } from '../harness/hark.js'
import { decodeHistogram, summarize } from '../harness/histogram.js'
import { measurement } from '../harness/measurement.js'
import { benchModule } from '../harness/paths.js'
import { measureWindow } from '../harness/window.js'
import { startWorker } from '../harness/worker.js'
import { defineScenario, type MeasureContext, type Measurement } from '../scenario.js'
import type { XiaozhiReady, XiaozhiResult } from '../workers/xiaozhiDevices.js'

interface Fixture {
  readonly seed: HarkSeed
}

const MAX_DEVICES = 400

const measureHark = async (ctx: MeasureContext, f: Fixture): Promise<Measurement> => {
  const hark = await startHark(ctx, { dataDir: f.seed.dataDir, cpus: serverCpus(ctx.cores), extraArgs: ['--rest-rate-limit-max', '1000000000'] })
  // Each device's room answers with an echo without pre-roll: echo's default 100 ms of silence
  // before the speech would otherwise open every reply (paced in real time) and be counted as latency.
  for (const c of f.seed.clients.slice(0, ctx.load)) {
    const r = await fetch(`${hark.restUrl}/api/v1/rooms/${encodeURIComponent(c.room!)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${f.seed.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ defaultAgent: { overrides: { prerollMs: 0 }, stopDelaySeconds: 60 } }),
    })
    if (r.status !== 200) throw new Error(`PUT /rooms/${c.room}: ${r.status} ${await r.text()}`)
  }
  const devices = f.seed.clients.slice(0, ctx.load).map((c, i) => ({
    token: c.tokens[0]!,
    mac: `02:be:ec:${((i >> 16) & 0xff).toString(16).padStart(2, '0')}:${((i >> 8) & 0xff).toString(16).padStart(2, '0')}:${(i & 0xff).toString(16).padStart(2, '0')}`,
  }))
  if (devices.length < ctx.load) throw new Error(`the load needs more than the ${f.seed.clients.length} seeded clients`)
  const w = startWorker(ctx.procs, {
    name: 'xiaozhi-devices',
    module: benchModule('workers/xiaozhiDevices'),
    cpus: generatorCpus(ctx.cores),
    logFile: ctx.logFile('xiaozhi-devices'),
  })
  ctx.phase(`xiaozhi: connecting ${devices.length} devices`)
  w.send({ type: 'start', url: `wss://127.0.0.1:${hark.ports.gateway}/xiaozhi/v1/`, devices })
  const ready = await w.next<XiaozhiReady>('ready', 120_000)
  if (ready.connected === 0) throw new Error(`no device connected (${ready.failed} failed)`)
  // The first turns also wait for each room's auto agent to start: they fall in the warm-up.
  const warmupUntilUs = monotonicUs() + 1_000_000 + ctx.warmupMs * 1000
  const endUs = warmupUntilUs + ctx.durationMs * 1000
  w.send({ type: 'go', warmupUntilUs, endUs })
  ctx.phase(`xiaozhi: ${ready.connected} devices talking, ${(ctx.durationMs / 1000).toFixed(0)} s measured`)
  const window = await measureWindow([hark.proc.pid, w.proc.pid], warmupUntilUs, endUs, { signal: ctx.signal })
  const r = await w.next<XiaozhiResult>('result', (endUs - monotonicUs()) / 1000 + 30_000)
  const histogram = decodeHistogram(r.histogram)
  if (!summarize(histogram)) throw new Error(`no reply inside the window (${r.missed} missed turns)`)
  const m = measurement({
    value: 0,
    histogram,
    window,
    serverPids: [hark.proc.pid],
    generatorPids: [w.proc.pid],
    generatorKind: 'node',
    cores: ctx.cores,
  })
  const cpu = m.server.cpuPercent
  return {
    ...m,
    value: cpu > 0 ? ready.connected / (cpu / 100) : 0,
    deliveryRatio: r.turns + r.missed > 0 ? r.turns / (r.turns + r.missed) : null,
    extra: {
      devices: ready.connected,
      connectFailures: ready.failed,
      connectMs: ready.connectMs,
      turns: r.turns,
      missedTurns: r.missed,
      turnsPerSecond: r.turns / (ctx.durationMs / 1000),
      serverCpuPercentPerDevice: ready.connected > 0 ? cpu / ready.connected : 0,
      packetsReceived: r.packetsReceived,
      stillConnected: r.connected,
    },
  }
}

export default defineScenario<Fixture>({
  name: 'xiaozhi-devices',
  description: 'xiaozhi-esp32 devices per core in a speak/reply cycle with the echo agent; latency listen stop → first reply packet',
  unit: 'devices/core',
  higherIsBetter: true,
  load: { quick: 8, full: 40, unit: 'devices' },
  timing: { quick: { warmupMs: 1500, durationMs: 4000 }, full: { warmupMs: 3000, durationMs: 15_000 } },
  sweep: { start: 10, factor: 1.5, maxLevel: MAX_DEVICES, p99LimitMs: 200, minDeliveryRatio: 0.99 },
  setup: async (ctx) => ({
    seed: await seedHark(ctx, { dataDir: join(ctx.dir, 'hark-data'), clients: ctx.sweep ? MAX_DEVICES : 64, tokensPerClient: 1, roomSize: 1 }),
  }),
  hark: {
    name: 'hark',
    label: 'Hark xiaozhi transport on the TLS gateway, one echo agent per device (room default agent, no pre-roll)',
    measure: measureHark,
  },
  peers: [],
})
