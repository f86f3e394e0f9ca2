/**
 * local-agent: the `local` provider with no cloud — end of a terminal's speech → the agent's first
 * reply frame (p50/p99, ms; lower is better), i.e. Silero's end-of-turn silence (300 ms), the
 * command grammar's last hypothesis, flite's first sentence and the engine's path. The phrases
 * are the kitchen assistant's, spoken by flite's five voices in turn (extra: command accuracy
 * per voice, %). The load is rooms talking at once, each with its own local agent (all in the
 * provider workers of a process pinned to one core): extra `cpuPerConversationPercent` and
 * `conversationsPerCore` say how many such conversations one core sustains in real time.
 */
import { serverCpus } from '../harness/cores.js'
import { monotonicUs } from '../harness/clock.js'
import { decodeHistogram, summarize } from '../harness/histogram.js'
import { measurement } from '../harness/measurement.js'
import { benchModule } from '../harness/paths.js'
import { measureWindow } from '../harness/window.js'
import { startWorker } from '../harness/worker.js'
import { defineScenario, type MeasureContext, type Measurement } from '../scenario.js'
import type { LocalAgentResult } from '../workers/localAgent.js'

const measureHark = async (ctx: MeasureContext): Promise<Measurement> => {
  const w = startWorker(ctx.procs, { name: 'hark-local', module: benchModule('workers/localAgent'), args: [], cpus: serverCpus(ctx.cores), logFile: ctx.logFile('hark-local') })
  ctx.phase(`hark-local: ${ctx.load} rooms with a local agent`)
  w.send({ type: 'start', rooms: ctx.load })
  await w.next('ready', 180_000)
  const warmupUntilUs = monotonicUs() + 50_000 + ctx.warmupMs * 1000
  const endUs = warmupUntilUs + ctx.durationMs * 1000
  w.send({ type: 'go', warmupUntilUs, endUs })
  ctx.phase(`hark-local: talking, ${(ctx.durationMs / 1000).toFixed(0)} s measured`)
  const window = await measureWindow([w.proc.pid], warmupUntilUs, endUs, { signal: ctx.signal })
  const r = await w.next<LocalAgentResult>('result', (endUs - monotonicUs()) / 1000 + 60_000)
  const histogram = decodeHistogram(r.histogram)
  const summary = summarize(histogram)
  if (!summary) throw new Error(`hark-local: no turn completed in the window (${r.missed} missed)`)
  const said = Object.values(r.voices).reduce((n, v) => n + v.said, 0)
  const cpu = window.processes.filter((p) => p.pid === w.proc.pid).reduce((n, p) => n + p.cpuPercent, 0)
  const perVoice = Object.fromEntries(Object.entries(r.voices).map(([v, x]) => [`accuracy_${v}_percent`, x.said ? Math.round((100 * x.right) / x.said) : 0]))
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
      accuracyPercent: said ? Math.round((100 * r.correct) / said) : 0,
      ...perVoice,
      cpuPerConversationPercent: Math.round(cpu / Math.max(1, ctx.load)),
      conversationsPerCore: cpu > 0 ? Math.round((100 * ctx.load) / cpu * 10) / 10 : 0,
    },
  })
}

export default defineScenario<undefined>({
  name: 'local-agent',
  description: 'local agent (pocketsphinx, flite): end of speech → first reply audio (p50, ms); accuracy and conversations per core in extra',
  unit: 'ms',
  higherIsBetter: false,
  load: { quick: 2, full: 4, unit: 'rooms talking' },
  timing: { quick: { warmupMs: 3000, durationMs: 30_000 }, full: { warmupMs: 5000, durationMs: 60_000 } },
  goal: { value: 400, text: '≤ 400 ms p50 on one core, recognition included (issue 37)' },
  hark: {
    name: 'hark',
    label: 'Hark local agent (Silero VAD 300 ms, pocketsphinx command grammar, flite) in a provider worker',
    measure: measureHark,
  },
  peers: [],
})
