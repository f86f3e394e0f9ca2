/**
 * agent-latency (standalone until the bench harness lands on main): the engine's overhead from the
 * end of a user's speech to the first agent audio frame out, with the `echo` provider.
 *
 * Terminals join rooms through the hub (the transport-free path every transport uses) and talk in
 * real time: one Opus uplink frame per 20 ms — 400 ms of speech, then silence. Echo ends an
 * utterance after `silenceMs` of silence, so that much waiting is the provider's by design; what is
 * measured is everything else:
 *   - continuous: the terminal keeps sending silence frames. Overhead = first echo frame delivered
 *     to the terminal − the send of the silence frame that completed echo's silence window (the
 *     last frame sent before the echo came out).
 *   - dtx: the terminal stops sending after its speech (discontinuous transmission). Overhead =
 *     first echo frame − (last speech frame sent + silenceMs); the room's mixer notices the source
 *     went quiet and fills the silence itself.
 *
 *   node dist/bench/agentLatency.js [--rooms 8] [--utterances 25] [--silence-ms 200] [--json out.json]
 */
import { writeFileSync } from 'node:fs'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Encoder } from '@evan/opus'
import { echoAgent } from '../agents/echo/index.js'
import { levelByteFromPcm } from '../core/dataplane/frame.js'
import type { ServerEvent } from '../core/events.js'
import { createEngine } from '../core/index.js'
import type { TerminalLink, TerminalSession } from '../core/terminals.js'

const { values: args } = parseArgs({
  options: {
    rooms: { type: 'string', default: '8' },
    utterances: { type: 'string', default: '25' },
    'silence-ms': { type: 'string', default: '200' },
    json: { type: 'string' },
  },
})
const ROOMS = Number(args.rooms)
const UTTERANCES = Number(args.utterances)
const SILENCE_MS = Number(args['silence-ms'])
const SPEECH_MS = 400
const FRAME_MS = 20

const pcmFrame = (i: number, voiced: boolean): Int16Array => {
  const f = new Int16Array(320)
  if (voiced) for (let k = 0; k < 320; k++) f[k] = Math.round(Math.sin((2 * Math.PI * 440 * (i * 320 + k)) / 16000) * 0.3 * 32767)
  return f
}

/** A terminal's side: encodes and sends in real time, timestamps the first echo frame of each turn. */
class Talker implements TerminalLink {
  readonly transport = 'bench'
  private readonly encoder = new Encoder({ channels: 1, sample_rate: 16000, application: 'voip' })
  session!: TerminalSession
  agentSourceId = -1
  waitingSince: number | null = null
  private onEcho: ((at: number) => void) | null = null
  /** When the latest uplink frame was handed to the engine (before the call). */
  lastSentAt = 0

  deliverAudio(frame: Uint8Array): void {
    const sourceId = (frame[2]! << 8) | frame[3]!
    if (sourceId !== this.agentSourceId || this.onEcho === null) return
    const done = this.onEcho
    this.onEcho = null
    done(performance.now())
  }
  sendEvent(event: ServerEvent): void {
    if (event.type === 'participant.joined' && event.participant.kind === 'agent') this.agentSourceId = event.participant.sourceId
    if (event.type === 'session') {
      const agent = event.participants.find((p) => p.kind === 'agent')
      if (agent) this.agentSourceId = agent.sourceId
    }
  }
  close(): void {}

  send(i: number, voiced: boolean): void {
    const pcm = pcmFrame(i, voiced)
    const opus = this.encoder.encode(new Uint8Array(pcm.buffer))
    const uplink = new Uint8Array(opus.length + 1)
    uplink[0] = levelByteFromPcm(pcm)
    uplink.set(opus, 1)
    this.lastSentAt = performance.now()
    this.session.pushAudio(uplink)
  }

  /** One turn, paced at 20 ms per frame; resolves with the overhead in ms. */
  async turn(mode: 'continuous' | 'dtx'): Promise<number> {
    let reference = 0
    const echoed = new Promise<number>((resolve) => (this.onEcho = resolve))
    const speechFrames = SPEECH_MS / FRAME_MS
    const start = performance.now()
    // Continuous: keep sending silence until the echo comes (bounded); dtx: stop after the speech.
    const total = speechFrames + (mode === 'continuous' ? 100 : 0)
    for (let i = 0; i < total && this.onEcho !== null; i++) {
      const wait = start + i * FRAME_MS - performance.now()
      if (wait > 0) await new Promise((r) => setTimeout(r, wait))
      if (this.onEcho === null) break
      this.send(i, i < speechFrames)
      if (mode === 'dtx' && i === speechFrames - 1) reference = this.lastSentAt + SILENCE_MS
    }
    const at = await Promise.race([echoed, new Promise<number>((_, reject) => setTimeout(() => reject(new Error('no echo')), 10_000))])
    // Continuous: the engine's time starts at the frame that completed echo's silence window, the
    // last one sent before the echo came out (Opus's decoder tail decides which one that is).
    if (mode === 'continuous') reference = this.lastSentAt
    // Let the echo play out before the next turn, so turns do not overlap.
    await new Promise((r) => setTimeout(r, SPEECH_MS + 200))
    return at - reference
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hark-agent-latency-'))
  const engine = createEngine({
    dataDir: dir, log: { level: 'silent' }, rest: { port: 0 }, gateway: { port: 0 }, mqtt: { port: 0, tlsPort: null },
    extensions: [echoAgent],
  })
  await engine.start()
  const { host } = engine
  const ws = host.security.createWorkspace('bench')
  const results: Record<string, number[]> = { continuous: [], dtx: [] }
  try {
    const talkers: Talker[] = []
    for (let r = 0; r < ROOMS; r++) {
      const clientId = `t${r}`
      const now = Date.now()
      host.storage.clients.insert({
        workspaceId: ws.workspaceId, clientId, name: null, kind: null, room: `room-${r}`, ephemeral: false,
        expiresAt: null, tokensNotBefore: now, createdAt: now, updatedAt: now,
      })
      const { token } = await host.security.tokens.issue(ws.workspaceId, clientId, null)
      const talker = new Talker()
      talker.session = host.terminals.open(await host.security.authenticateTerminal({ token }), talker)
      await host.agents.dispatch(ws.workspaceId, `room-${r}`, { overrides: { silenceMs: SILENCE_MS, minSpeechMs: 100 } })
      talkers.push(talker)
    }
    for (const mode of ['continuous', 'dtx'] as const) {
      await Promise.all(
        talkers.map(async (talker, r) => {
          await new Promise((res) => setTimeout(res, (r * FRAME_MS) / ROOMS + r * 37))
          for (let u = 0; u < UTTERANCES; u++) results[mode]!.push(await talker.turn(mode))
        }),
      )
    }
  } finally {
    await engine.stop()
    rmSync(dir, { recursive: true, force: true })
  }
  const summary: Record<string, Record<string, number>> = {}
  console.log(`agent-latency (echo, silenceMs ${SILENCE_MS}, ${ROOMS} rooms talking at once, ${UTTERANCES} turns each)`)
  console.log('mode         n     p50 ms   p90 ms   p99 ms   max ms')
  for (const [mode, values] of Object.entries(results)) {
    const sorted = [...values].sort((a, b) => a - b)
    const s = { n: sorted.length, p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted[sorted.length - 1]! }
    summary[mode] = s
    console.log(
      `${mode.padEnd(12)} ${String(s.n).padEnd(5)} ${s.p50.toFixed(2).padStart(8)} ${s.p90.toFixed(2).padStart(8)} ${s.p99.toFixed(2).padStart(8)} ${s.max.toFixed(2).padStart(8)}`,
    )
  }
  if (args.json) writeFileSync(args.json, JSON.stringify({ silenceMs: SILENCE_MS, rooms: ROOMS, utterances: UTTERANCES, summary }, null, 2))
}

await main()
