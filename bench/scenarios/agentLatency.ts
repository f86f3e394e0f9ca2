/**
 * agent-latency: the engine's overhead from the end of a user's speech to the first agent audio
 * frame out, with the `echo` provider (p50/p99, ms; lower is better). Echo waits `silenceMs` of
 * silence to know an utterance ended — that wait is the provider's, not the engine's, and is not
 * counted: the clock starts when the silence frame completing it is handed to the engine and
 * stops when the echo's first Opus frame reaches the terminal's link. Each room has one terminal
 * talking in real time and one echo agent; `load` rooms talk at once.
 *
 * Peers: `hark-isolated`, the same with echo isolated (its sessions in provider workers): the
 * difference of the two is what the worker hop adds (a batch of frames in, the batch of replies
 * out). The workers inherit the server's pinning (one core, shared with the engine's thread: the
 * pool's default is then one worker for every room's agent); `hark-isolated-spread` gives them
 * every core (one worker per core; the engine's thread stays pinned), as where nothing is
 * pinned: each message to a worker, and each reply, wakes a thread, and under load that wake
 * waits for a core — the tail of the hop (a traced run: ~0.05 ms of work in the worker, the
 * rest the two wake-ups). Quick runs measure hark and hark-isolated only. And the
 * floor, `bare-opus`: the same frames through one Opus decoder, the same segmenter and one Opus
 * encoder in a plain loop (no rooms, actors, mixing, pacing or router). Its ratio says what
 * the engine adds on top of the codec work an agent needs anyway. Hark's dtx-mode figures (the
 * terminal stops sending after its speech; the room's mixed input fills the silence) are in the
 * JSON as dtxP50Ms / dtxP99Ms.
 *
 * Each hark run then measures the tool round trip (workers/agentTools.ts): a `pipeline` agent on
 * the local OpenAI fakes calling a xiaozhi device emulator's tool, from the model's tool-call
 * reply to the device's `tools/call` to the model's next request with the result (p50/p99 in the
 * JSON as toolRoundTripP50Ms / toolRoundTripP99Ms, with each leg; a line below the table).
 */
import { serverCpus } from '../harness/cores.js'
import { monotonicUs } from '../harness/clock.js'
import { decodeHistogram, summarize } from '../harness/histogram.js'
import { measurement } from '../harness/measurement.js'
import { benchModule } from '../harness/paths.js'
import { measureWindow } from '../harness/window.js'
import { startWorker } from '../harness/worker.js'
import { defineScenario, type ComparedSide, type MeasureContext, type Measurement } from '../scenario.js'
import type { AgentEchoResult } from '../workers/agentEcho.js'
import type { AgentToolsResult } from '../workers/agentTools.js'

/** echo's shortest `silenceMs`: short turns, so a quick run has a few hundred per side. */
const SILENCE_MS = 100

type Side = 'hark' | 'hark-isolated' | 'hark-isolated-spread' | 'bare'
const NAMES: Record<Side, string> = {
  hark: 'hark-agents',
  'hark-isolated': 'hark-agents-isolated',
  'hark-isolated-spread': 'hark-agents-isolated-spread',
  bare: 'bare-echo',
}

const measureSide = async (ctx: MeasureContext, side: Side): Promise<Measurement> => {
  const name = NAMES[side]
  // spread: the engine's thread stays on the server core, its provider workers may use every core.
  const spread = side === 'hark-isolated-spread' && ctx.cores.pinned ? ['--worker-cpus', ctx.cores.allowed.join(',')] : []
  const w = startWorker(ctx.procs, {
    name,
    module: benchModule('workers/agentEcho'),
    args: ['--side', side === 'hark-isolated-spread' ? 'hark-isolated' : side, ...spread],
    cpus: serverCpus(ctx.cores),
    logFile: ctx.logFile(name),
  })
  ctx.phase(`${name}: ${ctx.load} rooms with an echo agent`)
  w.send({ type: 'start', rooms: ctx.load, silenceMs: SILENCE_MS })
  await w.next('ready', 120_000)
  const warmupUntilUs = monotonicUs() + 50_000 + ctx.warmupMs * 1000
  const endUs = warmupUntilUs + ctx.durationMs * 1000
  w.send({ type: 'go', warmupUntilUs, endUs })
  ctx.phase(`${name}: talking, ${(ctx.durationMs / 1000).toFixed(0)} s measured`)
  const window = await measureWindow([w.proc.pid], warmupUntilUs, endUs, { signal: ctx.signal })
  const r = await w.next<AgentEchoResult>('result', (endUs - monotonicUs()) / 1000 + 30_000)
  const histogram = decodeHistogram(r.histogram)
  const summary = summarize(histogram)
  if (!summary) throw new Error(`${name}: no turn completed in the window (${r.missed} missed)`)
  const dtx = r.dtxHistogram ? summarize(decodeHistogram(r.dtxHistogram)) : null
  return measurement({
    value: summary.p50Ms,
    histogram,
    window,
    serverPids: [w.proc.pid],
    generatorPids: [],
    cores: ctx.cores,
    extra: {
      turns: r.turns,
      missedTurns: r.missed,
      silenceMs: SILENCE_MS,
      eventLoopP99Ms: r.eventLoopP99Ms,
      eventLoopMaxMs: r.eventLoopMaxMs,
      ...(dtx ? { dtxTurns: dtx.count, dtxP50Ms: dtx.p50Ms, dtxP99Ms: dtx.p99Ms } : {}),
    },
  })
}

/**
 * The tool round trip (workers/agentTools.ts), in its own process on the server's cores after the
 * echo run: its figures go in the hark run's `extra` (ms).
 */
const measureTools = async (ctx: MeasureContext): Promise<Record<string, number>> => {
  const name = 'hark-agent-tools'
  const w = startWorker(ctx.procs, { name, module: benchModule('workers/agentTools'), cpus: serverCpus(ctx.cores), logFile: ctx.logFile(name) })
  ctx.phase(`${name}: a pipeline agent calling a device tool`)
  w.send({ type: 'start' })
  await w.next('ready', 120_000)
  const warmupUntilUs = monotonicUs() + 50_000 + ctx.warmupMs * 1000
  const endUs = warmupUntilUs + ctx.durationMs * 1000
  w.send({ type: 'go', warmupUntilUs, endUs })
  ctx.phase(`${name}: turns of ten tool calls, ${(ctx.durationMs / 1000).toFixed(0)} s measured`)
  const r = await w.next<AgentToolsResult>('result', (endUs - monotonicUs()) / 1000 + 60_000)
  const trip = summarize(decodeHistogram(r.roundTrip))
  const call = summarize(decodeHistogram(r.callLeg))
  const result = summarize(decodeHistogram(r.resultLeg))
  if (!trip || !call || !result) throw new Error(`${name}: no tool call completed in the window (${r.turns} turns, ${r.missedTurns} missed)`)
  return {
    toolCalls: r.calls,
    toolTurns: r.turns,
    toolMissedTurns: r.missedTurns,
    toolRoundTripP50Ms: trip.p50Ms,
    toolRoundTripP99Ms: trip.p99Ms,
    toolCallLegP50Ms: call.p50Ms,
    toolCallLegP99Ms: call.p99Ms,
    toolResultLegP50Ms: result.p50Ms,
    toolResultLegP99Ms: result.p99Ms,
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** The tool round trip below the table: the median over the hark runs of each figure. */
const compareTools = (sides: ReadonlyArray<ComparedSide>): string[] => {
  const runs = sides.find((s) => s.role === 'hark')?.runs.flatMap((r) => (r.measurement?.extra.toolRoundTripP50Ms === undefined ? [] : [r.measurement.extra])) ?? []
  if (runs.length === 0) return []
  const m = (k: string) => median(runs.map((e) => e[k]!))
  const f = (ms: number) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1))
  return [
    `tool round trip (pipeline agent, model's tool call → xiaozhi device tools/call → result → model's next request): p50 ${f(m('toolRoundTripP50Ms'))} ms, p99 ${f(m('toolRoundTripP99Ms'))} ms ` +
      `(call leg p50 ${f(m('toolCallLegP50Ms'))} / p99 ${f(m('toolCallLegP99Ms'))} ms, result leg p50 ${f(m('toolResultLegP50Ms'))} / p99 ${f(m('toolResultLegP99Ms'))} ms; ` +
      `${runs.reduce((n, e) => n + e.toolCalls!, 0)} calls in ${runs.length} run${runs.length === 1 ? '' : 's'})`,
  ]
}

export default defineScenario<undefined>({
  name: 'agent-latency',
  description: 'end of user speech → first echo-agent frame out, engine overhead (p50, ms)',
  unit: 'ms',
  higherIsBetter: false,
  // Quick: 8 rooms for 12 s on two sides only (hark, hark-isolated: the goal's pair; the spread and
  // bare-opus peers explain, and run in full runs): ≥ 200 turns per side (p99 is a percentile, not
  // one turn) in about a minute, where 4 rooms × 25 s × 4 sides took 4.5 min.
  load: { quick: 8, full: 16, unit: 'rooms talking' },
  timing: { quick: { warmupMs: 500, durationMs: 12_000 }, full: { warmupMs: 2000, durationMs: 30_000 } },
  hark: {
    name: 'hark',
    label: 'Hark echo agent in a room (hub terminal → router → agent → paced playout → router)',
    measure: async (ctx) => {
      const echo = await measureSide(ctx, 'hark')
      return { ...echo, extra: { ...echo.extra, ...(await measureTools(ctx)) } }
    },
  },
  compare: compareTools,
  goal: { text: 'isolation (hark-isolated) adds ≤ 1 ms at p99 over hark (in the engine\'s thread)' },
  peers: [
    {
      name: 'hark-isolated',
      label: 'the same echo agent isolated: its session in a provider worker (PCM over transferred buffers)',
      measure: (ctx) => measureSide(ctx, 'hark-isolated'),
    },
    {
      name: 'hark-isolated-spread',
      label: 'the same, its provider workers (one per core) free to run on every core (the engine\'s thread stays pinned; as when nothing is pinned)',
      fullOnly: true,
      measure: (ctx) => measureSide(ctx, 'hark-isolated-spread'),
    },
    {
      name: 'bare-opus',
      label: 'bare loop: Opus decode → same segmenter → Opus encode (the floor)',
      fullOnly: true,
      measure: (ctx) => measureSide(ctx, 'bare'),
    },
  ],
})
