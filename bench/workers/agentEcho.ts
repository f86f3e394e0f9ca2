/**
 * agent-latency, both sides in one worker module:
 *   --side hark: an engine in this process (temp data dir), one terminal per room attached
 *     through the terminal hub — the path every transport uses — and an `echo` agent dispatched
 *     into each room the way POST /api/v1/agents does;
 *   --side hark-isolated: the same, with echo isolated (its sessions in provider workers), so the
 *     difference between the two is what the worker hop adds per frame (in, and the reply out);
 *     `--worker-cpus 0,1` lets the workers leave the engine's core (placeWorkerThreads);
 *   --side bare: the floor — per room one Opus decoder, the same utterance segmenter and one Opus
 *     encoder in a plain loop: no rooms, actors, mixing, pacing or router.
 * Every room's terminal talks in real time (one 20 ms Opus frame per 20 ms): 60 ms of tone, then
 * silence until the echo starts; the next turn begins once the echo (60 ms, no preroll) has
 * finished. Turns are short so that even a quick run has a few hundred of them per side: p99 is
 * then a percentile, not the slowest turn. Echo ends an utterance after `silenceMs` of silence —
 * that wait is the provider's by design. What is recorded is the rest: from handing over the
 * silence frame that completed the window to the first reply frame out (continuous mode). On the
 * hark sides every fourth turn stops sending after the speech instead (dtx mode: the room's mixed
 * input fills the silence), reported separately from (last speech frame + silenceMs) to the first
 * reply frame.
 * IPC: start {rooms, silenceMs} → ready; go {warmupUntilUs, endUs} → result.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { Decoder, Encoder } from '@evan/opus'
import { echoAgent } from '../../agents/echo/index.js'
import { UtteranceSegmenter } from '../../agents/echo/segmenter.js'
import { levelByteFromPcm } from '../../core/dataplane/frame.js'
import type { ServerEvent } from '../../core/events.js'
import { createEngine, type Engine } from '../../core/index.js'
import type { TerminalLink, TerminalSession } from '../../core/session.js'
import { monotonicUs } from '../harness/clock.js'
import { createLatencyHistogram, encodeHistogram, recordUs, type LatencyHistogram } from '../harness/histogram.js'
import { serveWorker, type WorkerMessage } from '../harness/worker.js'

export interface AgentEchoStart extends WorkerMessage {
  readonly type: 'start'
  readonly rooms: number
  readonly silenceMs: number
}
export interface AgentEchoGo extends WorkerMessage {
  readonly type: 'go'
  readonly warmupUntilUs: number
  readonly endUs: number
}
export interface AgentEchoResult extends WorkerMessage {
  readonly type: 'result'
  readonly turns: number
  readonly missed: number
  readonly histogram: string
  /** dtx-mode overhead (hark side only), encoded histogram or null. */
  readonly dtxHistogram: string | null
  /** Event-loop delay of this process over the run (ms): stalls show up here. */
  readonly eventLoopP99Ms: number
  readonly eventLoopMaxMs: number
}

const { values: args } = parseArgs({ options: { side: { type: 'string' }, 'worker-cpus': { type: 'string' } } })
const side = args.side === 'bare' ? 'bare' : args.side === 'hark-isolated' ? 'hark-isolated' : 'hark'

const SPEECH_FRAMES = 3
/** Echo's segmentation for these turns: no preroll (the echo is the 60 ms of speech), 40 ms of speech is enough. */
export const ECHO_SEGMENTS = { prerollMs: 0, minSpeechMs: 40 } as const
const FRAME_MS = 20
/** A turn whose echo has not started by then is counted as missed. */
const ECHO_TIMEOUT_MS = 5000

const pcmFrame = (i: number, voiced: boolean): Int16Array => {
  const f = new Int16Array(320)
  if (voiced) for (let k = 0; k < 320; k++) f[k] = Math.round(Math.sin((2 * Math.PI * 440 * (i * 320 + k)) / 16000) * 0.3 * 32767)
  return f
}

/** Where a talker's frames go, and how it hears the first reply frame of a turn. */
interface Path {
  send(uplink: Uint8Array): void
  /** Set by the talker; the path calls it with the monotonic time of the first reply frame. */
  onReply: ((atUs: number) => void) | null
  /** When the last reply frame of any turn arrived (0: never). */
  readonly lastReplyFrameUs: number
}

/** A turn starts only after the agent was quiet this long, so its first reply frame is its own. */
const QUIET_BEFORE_TURN_MS = 60

class Talker {
  private readonly encoder = new Encoder({ channels: 1, sample_rate: 16000, application: 'voip' })
  private lastSentUs = 0

  constructor(
    readonly path: Path,
    private readonly silenceMs: number,
  ) {}

  private send(i: number, voiced: boolean): void {
    const pcm = pcmFrame(i, voiced)
    const opus = this.encoder.encode(new Uint8Array(pcm.buffer))
    const uplink = new Uint8Array(opus.length + 1)
    uplink[0] = levelByteFromPcm(pcm)
    uplink.set(opus, 1)
    this.lastSentUs = monotonicUs()
    this.path.send(uplink)
  }

  /** One turn; resolves with the overhead in µs, or null when no echo came (or came too early). */
  async turn(dtx: boolean): Promise<number | null> {
    for (let i = 0; i < 250 && monotonicUs() - this.path.lastReplyFrameUs < QUIET_BEFORE_TURN_MS * 1000; i++) {
      await new Promise((r) => setTimeout(r, FRAME_MS))
    }
    let replyUs = 0
    let speechDone = false
    const replied = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ECHO_TIMEOUT_MS)
      this.path.onReply = (at) => {
        clearTimeout(timer)
        replyUs = at
        resolve(true)
      }
    })
    const startUs = monotonicUs()
    let reference = 0
    // Continuous: keep sending silence until the echo comes (at most 2 s of it); dtx: stop after the speech.
    const total = SPEECH_FRAMES + (dtx ? 0 : 100)
    for (let i = 0; i < total && this.path.onReply !== null; i++) {
      const waitMs = (startUs + i * FRAME_MS * 1000 - monotonicUs()) / 1000
      if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs))
      if (this.path.onReply === null) break
      this.send(i, i < SPEECH_FRAMES)
      if (i === SPEECH_FRAMES - 1) {
        speechDone = true
        if (dtx) reference = this.lastSentUs + this.silenceMs * 1000
      }
    }
    const ok = await replied
    this.path.onReply = null
    // A reply before the speech ended is not an echo of it: the turn does not count.
    if (!ok || !speechDone) return null
    if (!dtx) reference = this.lastSentUs
    return replyUs - reference
  }
}

/** Hark: a hub terminal whose downlink frames from the agent's source are the replies. */
class HubTerminal implements TerminalLink, Path {
  readonly transport = 'bench'
  session!: TerminalSession
  agentSourceId = -1
  onReply: ((atUs: number) => void) | null = null
  lastReplyFrameUs = 0

  deliverAudio(frame: Uint8Array): void {
    if (((frame[2]! << 8) | frame[3]!) !== this.agentSourceId) return
    this.lastReplyFrameUs = monotonicUs()
    if (this.onReply === null) return
    const reply = this.onReply
    this.onReply = null
    reply(monotonicUs())
  }
  sendEvent(event: ServerEvent): void {
    if (event.type === 'participant.joined' && event.participant.kind === 'agent') this.agentSourceId = event.participant.sourceId
  }
  close(): void {}
  send(uplink: Uint8Array): void {
    this.session.pushAudio(uplink)
  }
}

/** Bare: decode, segment, and encode the first frame of the utterance, in the send call. */
class BarePipeline implements Path {
  private readonly decoder = new Decoder({ channels: 1, sample_rate: 16000 })
  private readonly encoder = new Encoder({ channels: 1, sample_rate: 16000, application: 'voip' })
  private readonly segmenter: UtteranceSegmenter
  onReply: ((atUs: number) => void) | null = null
  lastReplyFrameUs = 0

  constructor(silenceMs: number) {
    this.segmenter = new UtteranceSegmenter(
      { thresholdDbov: 50, silenceMs, ...ECHO_SEGMENTS, maxUtteranceMs: 10_000 },
      (pcm) => {
        const opus = this.encoder.encode(new Uint8Array(pcm.buffer, pcm.byteOffset, 640))
        if (opus.length > 0 && this.onReply) {
          const reply = this.onReply
          this.onReply = null
          reply(monotonicUs())
        }
      },
    )
  }

  send(uplink: Uint8Array): void {
    const bytes = this.decoder.decode(uplink.subarray(1))
    this.segmenter.push(new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 1))
  }
}

/** This process's threads: Linux thread id → name. */
const threads = (): Map<string, string> => {
  const out = new Map<string, string>()
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      out.set(tid, readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim())
    } catch {
      // ended meanwhile
    }
  }
  return out
}

/**
 * Provider worker threads inherit the engine's CPU affinity (the bench pins the server process to
 * one core, so its workers share that core with the engine's thread). `--worker-cpus 0,1` re-pins
 * them (Linux thread ids from /proc/self/task, taskset): the engine's thread stays on its core, its
 * workers may run on any of those, as an unpinned engine's do. Each worker's affinity is logged.
 */
const placeWorkerThreads = (before: ReadonlySet<string>, cpus: string | undefined): void => {
  for (const [tid, name] of threads()) {
    if (before.has(tid) || /^(libuv|V8)/.test(name)) continue
    if (cpus) execFileSync('taskset', ['-p', '-c', cpus, tid], { stdio: 'ignore' })
    const allowed = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync(`/proc/self/task/${tid}/status`, 'utf8'))?.[1]
    process.stderr.write(`provider worker thread ${tid} (${name}): cpus ${allowed}${cpus ? ' (re-pinned)' : ' (inherited)'}\n`)
  }
}

let engine: Engine | null = null
let dataDir: string | null = null
let talkers: Talker[] = []

const setUp = async (s: AgentEchoStart): Promise<void> => {
  if (side === 'bare') {
    talkers = Array.from({ length: s.rooms }, () => new Talker(new BarePipeline(s.silenceMs), s.silenceMs))
    return
  }
  dataDir = mkdtempSync(join(tmpdir(), 'hark-agent-latency-'))
  engine = createEngine({
    dataDir, log: { level: 'warn' }, rest: { port: 0 },
    // hark-isolated: the same echo, its sessions in provider workers: as many as the engine has
    // CPUs (the default; pinned to one core: one worker for every room), or one per --worker-cpus.
    extensions: [side === 'hark-isolated' ? { ...echoAgent, isolate: true } : echoAgent],
    ...(args['worker-cpus'] ? { agents: { workers: args['worker-cpus'].split(',').length } } : {}),
  })
  await engine.start()
  const { host } = engine
  const ws = host.security.createWorkspace('bench')
  const threadsBefore = new Set(threads().keys())
  for (let r = 0; r < s.rooms; r++) {
    const clientId = `t${r}`
    const now = Date.now()
    host.storage.clients.insert({
      workspaceId: ws.workspaceId, clientId, name: null, kind: null, room: `room-${r}`, ephemeral: false,
      expiresAt: null, tokensNotBefore: now, createdAt: now, updatedAt: now,
    })
    const { token } = await host.security.tokens.issue(ws.workspaceId, clientId, null)
    const terminal = new HubTerminal()
    terminal.session = host.terminals.open(await host.security.authenticateTerminal({ token }), terminal)
    await host.agents.dispatch(ws.workspaceId, `room-${r}`, { overrides: { silenceMs: s.silenceMs, ...ECHO_SEGMENTS } })
    talkers.push(new Talker(terminal, s.silenceMs))
  }
  if (side === 'hark-isolated') placeWorkerThreads(threadsBefore, args['worker-cpus'])
}

const run = async (g: AgentEchoGo): Promise<AgentEchoResult> => {
  const histogram = createLatencyHistogram()
  const dtx: LatencyHistogram | null = side !== 'bare' ? createLatencyHistogram() : null
  let turns = 0
  let missed = 0
  const loop = monitorEventLoopDelay({ resolution: 10 })
  loop.enable()
  await Promise.all(
    talkers.map(async (talker, r) => {
      // Rooms start spread over one turn, so their utterances do not end in lockstep.
      await new Promise((res) => setTimeout(res, r * 47))
      for (let n = 0; monotonicUs() < g.endUs && n < 100_000; n++) {
        const useDtx = dtx !== null && n % 4 === 3
        const startedUs = monotonicUs()
        const overheadUs = await talker.turn(useDtx)
        if (startedUs < g.warmupUntilUs) continue
        if (overheadUs === null) {
          missed++
          continue
        }
        turns++
        recordUs(useDtx ? dtx! : histogram, Math.max(1, overheadUs))
      }
    }),
  )
  loop.disable()
  return {
    type: 'result',
    turns,
    missed,
    eventLoopP99Ms: loop.percentile(99) / 1e6,
    eventLoopMaxMs: loop.max / 1e6,
    histogram: encodeHistogram(histogram),
    dtxHistogram: dtx && dtx.totalCount > 0 ? encodeHistogram(dtx) : null,
  }
}

serveWorker({
  deadlineMs: 15 * 60_000,
  onMessage: async (m, send) => {
    if (m.type === 'start') {
      await setUp(m as AgentEchoStart)
      send({ type: 'ready', rooms: talkers.length })
    } else if (m.type === 'go') {
      send(await run(m as AgentEchoGo))
    }
  },
  onStop: async () => {
    await engine?.stop()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  },
})
