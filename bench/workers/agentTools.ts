/**
 * agent-latency's tool round trip: a `pipeline` agent against the local fake of the OpenAI HTTP
 * APIs (agents/pipeline/test/fakeOpenAiHttp.ts), a xiaozhi device emulator
 * (transports/xiaozhi/test/device.ts) in its room serving `self.light.set_on` over the device MCP,
 * and a terminal attached through the hub that speaks a turn at a time. Each turn the fake model
 * asks for the device tool ten times in a row (maxToolRounds 10), then answers in words.
 * Recorded per call, on this process's clock: from the fake model's tool-call reply ending to the
 * device receiving `tools/call` (the call leg), from there to the model receiving the next request
 * that carries the result (the result leg), and the sum, the round trip the engine adds to a
 * device tool call (model → device → result → model). The device answers at once; the model's
 * side is a local HTTP server, so what is left is Hark's: the stream's parse, the permission and
 * schema checks, the MCP hop over the device's WebSocket and back, the next chat request.
 * IPC: start {} → ready; go {warmupUntilUs, endUs} → result.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipelineAgent } from '../../agents/pipeline/index.js'
import { FakeOpenAiHttp, type FakeRequest } from '../../agents/pipeline/test/fakeOpenAiHttp.js'
import { speechLike } from '../../agents/test/audioChecks.js'
import type { ServerEvent } from '../../core/events.js'
import { createEngine, type Engine, type EngineConfig } from '../../core/index.js'
import type { TerminalLink, TerminalSession } from '../../core/session.js'
import { concat, silence, UplinkEncoder } from '../../core/test/speech.js'
import { websocketTransport } from '../../transports/websocket/index.js'
import { xiaozhi } from '../../transports/xiaozhi/index.js'
import { XiaozhiDevice } from '../../transports/xiaozhi/test/device.js'
import { monotonicUs } from '../harness/clock.js'
import { createLatencyHistogram, encodeHistogram, recordUs } from '../harness/histogram.js'
import { serveWorker, type WorkerMessage } from '../harness/worker.js'

export interface AgentToolsGo extends WorkerMessage {
  readonly type: 'go'
  readonly warmupUntilUs: number
  readonly endUs: number
}
export interface AgentToolsResult extends WorkerMessage {
  readonly type: 'result'
  readonly calls: number
  readonly turns: number
  /** Turns whose reply did not come within TURN_TIMEOUT_MS. */
  readonly missedTurns: number
  /** Encoded histograms (µs): the round trip, its call leg and its result leg. */
  readonly roundTrip: string
  readonly callLeg: string
  readonly resultLeg: string
}

const KEYS = { stt: 'sk-bench-stt-000000000001', llm: 'sk-bench-llm-000000000002', tts: 'sk-bench-tts-000000000003' }
const ROUNDS = 10
const TURN_TIMEOUT_MS = 15_000
const FRAME_MS = 20

/** A terminal attached through the hub: it only needs to hear when the agent's reply is final. */
class HubTerminal implements TerminalLink {
  readonly transport = 'bench'
  session!: TerminalSession
  onEvent: ((event: ServerEvent) => void) | null = null
  deliverAudio(): void {}
  sendEvent(event: ServerEvent): void {
    this.onEvent?.(event)
  }
  close(): void {}
}

let engine: Engine | null = null
let fake: FakeOpenAiHttp | null = null
let device: XiaozhiDevice | null = null
let dataDir: string | null = null
let terminal: HubTerminal | null = null

/** Times of the exchange in progress (one room: calls are sequential). */
const at = { askedUs: 0, calledUs: 0 }

const agentEvent = (kind: string, predicate: (e: Record<string, unknown>) => boolean, timeoutMs: number): Promise<boolean> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => {
      terminal!.onEvent = null
      resolve(false)
    }, timeoutMs)
    terminal!.onEvent = (e) => {
      if (e.type !== 'agent.event' || e.event.kind !== kind || !predicate(e.event as Record<string, unknown>)) return
      clearTimeout(timer)
      terminal!.onEvent = null
      resolve(true)
    }
  })

const setUp = async (): Promise<void> => {
  fake = await FakeOpenAiHttp.start(KEYS)
  // One turn: ten tool calls, then words; the script is long enough for every turn of a run.
  const turn = [...Array.from({ length: ROUNDS }, () => ({ toolCalls: [{ name: 'self.light.set_on', arguments: { room: 'kitchen', on: true } }] })), 'Done.']
  fake.script.transcripts = ['turn on the kitchen light']
  fake.script.replies = Array.from({ length: 2000 }, () => turn).flat()
  dataDir = mkdtempSync(join(tmpdir(), 'hark-agent-tools-'))
  const api = (apiKey: string) => ({ baseUrl: fake!.baseUrl, apiKey, apiKeyEnv: 'HARK_BENCH_NONE' })
  engine = createEngine({
    dataDir, log: { level: 'warn' }, rest: { port: 0 }, gateway: { port: 0 },
    extensions: [websocketTransport, ...xiaozhi, pipelineAgent],
    xiaozhi: { autoAgent: false },
    agents: { defaultProvider: 'pipeline', startTimeoutMs: 30_000, pipeline: { stt: api(KEYS.stt), llm: api(KEYS.llm), tts: api(KEYS.tts), requestTimeoutMs: 10_000 } },
  } as EngineConfig)
  await engine.start()
  const { host } = engine
  const ws = host.security.createWorkspace('bench').workspaceId
  const now = Date.now()
  for (const clientId of ['t0', 'speaker-0']) {
    host.storage.clients.insert({ workspaceId: ws, clientId, name: null, kind: null, room: 'kitchen', ephemeral: false, expiresAt: null, tokensNotBefore: now, createdAt: now, updatedAt: now })
  }
  terminal = new HubTerminal()
  const { token } = await host.security.tokens.issue(ws, 't0', null)
  terminal.session = host.terminals.open(await host.security.authenticateTerminal({ token }), terminal)
  const offered = agentEvent('tools', (e) => Array.isArray(e.tools) && (e.tools as string[]).includes('speaker-0_self_light_set_on'), 30_000)
  await host.agents.dispatch(ws, 'kitchen', {
    overrides: { instructions: 'You run the house.', vadSilenceMs: 300, minSpeechMs: 100, tools: { device: ['*/self.light.*'] }, maxToolRounds: ROUNDS, toolTimeoutMs: 5000 },
  })
  device = await XiaozhiDevice.connect({
    url: `wss://127.0.0.1:${engine.ports.gateway}/xiaozhi/v1/`,
    ca: host.tls.cert,
    token: host.security.devicePasswords.reset(ws, 'speaker-0').password,
    device: { mac: '06:00:00:00:0b:01', uuid: randomUUID() },
    hello: false,
  })
  device.serveTools({
    'self.light.set_on': {
      description: 'Turn a light on or off',
      inputSchema: { type: 'object', properties: { room: { type: 'string' }, on: { type: 'boolean' } }, required: ['on'] },
      call: (a) => {
        at.calledUs = monotonicUs()
        return `the ${String(a.room)} light is ${a.on ? 'on' : 'off'}`
      },
    },
  })
  await device.hello()
  if (!(await offered)) throw new Error('the device tool was never offered to the model')
}

const run = async (g: AgentToolsGo): Promise<AgentToolsResult> => {
  const roundTrip = createLatencyHistogram()
  const callLeg = createLatencyHistogram()
  const resultLeg = createLatencyHistogram()
  let calls = 0
  let turns = 0
  let missedTurns = 0
  let done = false
  // The model's side: each chat request as it arrives, and when its reply ended.
  const seen = new Set<FakeRequest>()
  const watching = (async () => {
    while (!done) {
      const r = await fake!.requests.next((x) => x.stage === 'llm' && !seen.has(x), TURN_TIMEOUT_MS).catch(() => null)
      if (done) return
      if (r === null) continue
      seen.add(r)
      const arrivedUs = monotonicUs()
      const messages = r.body.messages as Array<{ role: string }>
      if (messages[messages.length - 1]?.role === 'tool' && at.askedUs > 0 && at.calledUs > at.askedUs && at.askedUs >= g.warmupUntilUs && arrivedUs <= g.endUs) {
        recordUs(roundTrip, Math.max(1, arrivedUs - at.askedUs))
        recordUs(callLeg, Math.max(1, at.calledUs - at.askedUs))
        recordUs(resultLeg, Math.max(1, arrivedUs - at.calledUs))
        calls++
      }
      at.askedUs = 0
      void r.closed.then(() => (at.askedUs = monotonicUs()))
    }
  })()
  const encoder = new UplinkEncoder()
  const speech = encoder.frames(concat(silence(100), speechLike(600)))
  const quiet = encoder.frame(new Int16Array(320))
  while (monotonicUs() < g.endUs) {
    const replied = agentEvent('transcript', (e) => e.role === 'agent' && e.final === true, TURN_TIMEOUT_MS)
    let over = false
    void replied.then(() => (over = true))
    // Speech, then silence until the reply is final: paced like a microphone, one frame per 20 ms.
    const startUs = monotonicUs()
    for (let i = 0; !over && i < TURN_TIMEOUT_MS / FRAME_MS; i++) {
      const waitMs = (startUs + i * FRAME_MS * 1000 - monotonicUs()) / 1000
      if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs))
      terminal!.session.pushAudio(i < speech.length ? speech[i]! : quiet)
    }
    if (await replied) turns++
    else missedTurns++
  }
  done = true
  await watching
  return {
    type: 'result',
    calls,
    turns,
    missedTurns,
    roundTrip: encodeHistogram(roundTrip),
    callLeg: encodeHistogram(callLeg),
    resultLeg: encodeHistogram(resultLeg),
  }
}

serveWorker({
  deadlineMs: 15 * 60_000,
  onMessage: async (m, send) => {
    if (m.type === 'start') {
      await setUp()
      send({ type: 'ready' })
    } else if (m.type === 'go') {
      send(await run(m as AgentToolsGo))
    }
  },
  onStop: async () => {
    device?.close()
    await engine?.stop()
    await fake?.stop()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  },
})
