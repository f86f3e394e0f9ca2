/**
 * local-agent: an engine in this process (temp data dir) with `load` rooms, each a hub terminal
 * and a `local` agent (the kitchen assistant's intents, replies only: no device needed) in a
 * provider worker. Each terminal speaks the kitchen phrases in flite's voices in real time (one
 * 20 ms Opus frame per 20 ms), then silence until the agent's reply has played out. Recorded per
 * turn: end of speech (the last frame of the phrase handed to the engine) → the agent's first
 * reply frame at the terminal, i.e. VAD silence + recognition + synthesis + the engine's path,
 * and whether the agent's intent was the phrase's.
 * IPC: start {rooms} → ready; go {warmupUntilUs, endUs} → result.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Encoder } from '@evan/opus'
import { localAgent } from '../../agents/local/index.js'
import { kitchenAssistant, kitchenPhrases } from '../../agents/local/kitchen.js'
import { findEngines, type FliteVoice } from '../../agents/local/engines.js'
import { Voice } from '../../agents/local/voice.js'
import { levelByteFromPcm } from '../../core/dataplane/frame.js'
import type { ServerEvent } from '../../core/events.js'
import { createEngine, type Engine } from '../../core/index.js'
import type { TerminalLink, TerminalSession } from '../../core/session.js'
import { monotonicUs } from '../harness/clock.js'
import { createLatencyHistogram, encodeHistogram, recordUs } from '../harness/histogram.js'
import { serveWorker, type WorkerMessage } from '../harness/worker.js'

export interface LocalAgentResult extends WorkerMessage {
  readonly type: 'result'
  readonly turns: number
  readonly missed: number
  readonly correct: number
  /** Per voice: phrases said, intents right. */
  readonly voices: Record<string, { said: number; right: number }>
  readonly histogram: string
}

export const VOICES: FliteVoice[] = ['slt', 'kal16', 'awb', 'rms', 'kal']
/** A reply that has not started by then is a missed turn. */
const REPLY_TIMEOUT_MS = 6000

/** The kitchen assistant without tools: every intent answers from its template. */
const preset = {
  ...kitchenAssistant,
  intents: kitchenAssistant.intents.map(({ tool: _tool, ...intent }) => ({ ...intent, reply: intent.reply.replace('{result}', 'twenty') })),
}

class Talker implements TerminalLink {
  readonly transport = 'bench'
  session!: TerminalSession
  agentSourceId = -1
  private readonly encoder = new Encoder({ channels: 1, sample_rate: 16000, application: 'voip' })
  private onReply: ((atUs: number) => void) | null = null
  private lastReplyFrameUs = 0
  intents: string[] = []

  deliverAudio(frame: Uint8Array): void {
    if (((frame[2]! << 8) | frame[3]!) !== this.agentSourceId) return
    this.lastReplyFrameUs = monotonicUs()
    const reply = this.onReply
    this.onReply = null
    reply?.(this.lastReplyFrameUs)
  }
  sendEvent(event: ServerEvent): void {
    if (event.type === 'participant.joined' && event.participant.kind === 'agent') this.agentSourceId = event.participant.sourceId
    if (event.type === 'agent.event' && event.event.kind === 'intent') this.intents.push(String(event.event.intent))
  }
  close(): void {}

  private frame(pcm: Int16Array): void {
    const opus = this.encoder.encode(new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength))
    const uplink = new Uint8Array(opus.length + 1)
    uplink[0] = levelByteFromPcm(pcm)
    uplink.set(opus, 1)
    this.session.pushAudio(uplink)
  }

  /** One turn: the phrase in real time, then silence until the reply starts; µs from end of speech, or null. */
  async turn(speech: Int16Array): Promise<number | null> {
    // Quiet first: the previous reply has played out.
    while (monotonicUs() - this.lastReplyFrameUs < 300_000) await new Promise((r) => setTimeout(r, 20))
    const frames = Math.ceil(speech.length / 320)
    const replied = new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), REPLY_TIMEOUT_MS + frames * 20)
      this.onReply = (at) => {
        clearTimeout(timer)
        resolve(at)
      }
    })
    const start = monotonicUs()
    let endOfSpeech = 0
    for (let i = 0; this.onReply !== null && i < frames + 150; i++) {
      const wait = (start + i * 20_000 - monotonicUs()) / 1000
      if (wait > 0) await new Promise((r) => setTimeout(r, wait))
      if (this.onReply === null) break
      const pcm = new Int16Array(320)
      if (i < frames) pcm.set(speech.subarray(i * 320, (i + 1) * 320))
      this.frame(pcm)
      if (i === frames - 1) endOfSpeech = monotonicUs()
    }
    const at = await replied
    this.onReply = null
    return at === null || endOfSpeech === 0 ? null : at - endOfSpeech
  }
}

let engine: Engine | null = null
let dataDir: string | null = null
const talkers: Talker[] = []
const speech = new Map<string, Int16Array>()

serveWorker({
  deadlineMs: 15 * 60_000,
  onMessage: async (m, send) => {
    if (m.type === 'start') {
      const engines = findEngines({ modelDir: '/usr/share/pocketsphinx/model/en-us', libraryDirs: [] })
      for (const v of VOICES) {
        const voice = Voice.open(engines, v)
        for (const p of kitchenPhrases) speech.set(`${v}:${p.say}`, await voice.say(p.say))
      }
      dataDir = mkdtempSync(join(tmpdir(), 'hark-local-agent-'))
      engine = createEngine({ dataDir, log: { level: 'warn' }, rest: { port: 0 }, extensions: [localAgent], agents: { defaultProvider: 'local', startTimeoutMs: 60_000 } })
      await engine.start()
      const { host } = engine
      const ws = host.security.createWorkspace('bench')
      for (let r = 0; r < (m as unknown as { rooms: number }).rooms; r++) {
        const now = Date.now()
        host.storage.clients.insert({
          workspaceId: ws.workspaceId, clientId: `t${r}`, name: null, kind: null, room: `room-${r}`, ephemeral: false,
          expiresAt: null, tokensNotBefore: now, createdAt: now, updatedAt: now,
        })
        const { token } = await host.security.tokens.issue(ws.workspaceId, `t${r}`, null)
        const talker = new Talker()
        talker.session = host.terminals.open(await host.security.authenticateTerminal({ token }), talker)
        await host.agents.dispatch(ws.workspaceId, `room-${r}`, { overrides: preset })
        talkers.push(talker)
      }
      send({ type: 'ready', rooms: talkers.length })
    } else if (m.type === 'go') {
      const g = m as unknown as { warmupUntilUs: number; endUs: number }
      const histogram = createLatencyHistogram()
      const voices: Record<string, { said: number; right: number }> = {}
      let turns = 0
      let missed = 0
      let correct = 0
      await Promise.all(
        talkers.map(async (talker, r) => {
          await new Promise((res) => setTimeout(res, r * 173))
          for (let n = r; monotonicUs() < g.endUs; n++) {
            const voice = VOICES[n % VOICES.length]!
            const phrase = kitchenPhrases[Math.floor(n / VOICES.length) % kitchenPhrases.length]!
            const startedUs = monotonicUs()
            const before = talker.intents.length
            const us = await talker.turn(speech.get(`${voice}:${phrase.say}`)!)
            if (startedUs < g.warmupUntilUs) continue
            const v = (voices[voice] ??= { said: 0, right: 0 })
            v.said++
            if (talker.intents.length > before && talker.intents.at(-1) === phrase.intent) {
              v.right++
              correct++
            }
            if (us === null) missed++
            else {
              turns++
              recordUs(histogram, Math.max(1, us))
            }
          }
        }),
      )
      send({ type: 'result', turns, missed, correct, voices, histogram: encodeHistogram(histogram) } satisfies LocalAgentResult)
    }
  },
  onStop: async () => {
    await engine?.stop()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  },
})
