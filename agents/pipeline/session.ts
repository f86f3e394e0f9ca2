/**
 * One pipeline agent's conversation: the room's mixed audio goes through a VAD model; each
 * utterance is transcribed (speech-to-text), the transcript is added to the conversation and the
 * chat model's streamed reply is cut into sentences, each spoken (text-to-speech) as soon as it is
 * complete, so the first sentence plays while the rest is still being written.
 *
 * Barge-in, as with the realtime provider: when a terminal starts talking (the room's
 * `speaking.started`) or the VAD confirms speech while the agent is talking, the reply's requests
 * are aborted, its queued audio dropped, and only what the room heard is published and kept in
 * the conversation (marked `truncated`). A new utterance while a reply is still being prepared
 * replaces it.
 *
 * Failures: a refused key (HTTP 401/403) fails the agent; any other failure (an HTTP error, a
 * timeout, a dropped connection, a malformed answer) costs that turn only — the room gets
 * `{kind: "error", stage, reason}` — and three failed turns in a row fail the agent.
 */
import {
  heardOfSpoken, PcmResampler, scrubSecrets, SpeechSegmenter, ToolRunner, VAD_RATE, whenPlayed,
  type AgentContext, type AgentControl, type AgentSession, type ServerEvent, type ToolConfig,
} from '../../core/provider.js'
import { ApiError, chatStream, speech, transcribe, wavFile, type ApiEndpoint, type ChatMessage, type Stage, type ToolCall } from './openaiHttp.js'
import { SentenceSplitter } from './sentences.js'

export interface PipelineConfig extends ToolConfig {
  readonly sttModel: string
  readonly language?: string
  readonly llmModel: string
  readonly instructions: string
  readonly ttsModel: string
  readonly voice: string
  readonly ttsFormat: 'pcm' | 'wav'
  readonly vadThreshold: number
  readonly vadSilenceMs: number
  readonly minSpeechMs: number
  readonly maxUtteranceMs: number
  readonly maxHistoryTurns: number
}

export interface PipelineEndpoints {
  readonly stt: ApiEndpoint
  readonly llm: ApiEndpoint
  readonly tts: ApiEndpoint
  /** Values scrubbed from whatever this session logs. */
  readonly secrets: ReadonlyArray<string>
}

/**
 * A sentence's speech is asked for once less than this is left to play of the ones before it: a
 * reply plays without gaps, and a barge-in leaves little speech paid for and never heard.
 */
export const SPEECH_LEAD_MS = 1500

/** Failed turns in a row that fail the agent. */
export const MAX_FAILED_TURNS = 3

const STAGE_NAMES: Record<Stage, string> = { stt: 'speech-to-text', llm: 'chat model', tts: 'text-to-speech' }

/** One reply in the making: its requests, and what of it has been pushed into the room. */
interface Turn {
  readonly abort: AbortController
  /** Sentences spoken so far, with the milliseconds of audio each was pushed as. */
  readonly spoken: Array<{ text: string; ms: number }>
  pushedMs: number
  speaking: boolean
}

export class PipelineSession implements AgentSession {
  private segmenter!: SpeechSegmenter
  private readonly history: ChatMessage[] = []
  private turn: Turn | null = null
  private failedTurns = 0
  private readonly resamplers = new Map<number, Promise<PcmResampler>>()
  private stopped = false
  private readonly tools: ToolRunner
  /** Text asked for with `say` (no interrupt) while a reply was under way: said once it ends. */
  private readonly toSay: string[] = []

  /** Live control: say through text-to-speech, interrupt as a barge-in, update read at the next turn. */
  readonly control: AgentControl = {
    say: (text, { interrupt }) => {
      if (interrupt) this.interrupt()
      if (this.turn) this.toSay.push(text)
      else void this.sayNow(text)
    },
    interrupt: () => {
      this.toSay.length = 0
      this.interrupt()
    },
    // Instructions and tools are read from ctx.config at every turn; tell the room the tools on offer now.
    update: (changed) => {
      if (!changed.includes('tools')) return
      this.watchTools()
      this.toolsOnOffer()
    },
  }
  private unwatchTools: (() => void) | null = null

  /** Tell the room the tools on offer whenever the room's tools change (from the first read of ctx.tools on). */
  private watchTools(): void {
    this.unwatchTools ??= this.ctx.tools.onChange(() => this.toolsOnOffer())
  }

  private toolsOnOffer(): void {
    this.ctx.emit({ kind: 'tools', tools: this.tools.functions().map((f) => f.name) })
  }

  private constructor(
    private readonly ctx: AgentContext<PipelineConfig>,
    private readonly endpoints: PipelineEndpoints,
  ) {
    this.tools = new ToolRunner(ctx, () => ctx.config, endpoints.secrets)
  }

  static async open(ctx: AgentContext<PipelineConfig>, endpoints: PipelineEndpoints): Promise<PipelineSession> {
    const session = new PipelineSession(ctx, endpoints)
    const c = ctx.config
    session.segmenter = await SpeechSegmenter.create(
      { threshold: c.vadThreshold, silenceMs: c.vadSilenceMs, minSpeechMs: c.minSpeechMs, prerollMs: 200, maxUtteranceMs: c.maxUtteranceMs },
      {
        speechStarted: () => session.onSpeechStarted(),
        utterance: (pcm) => void session.respond(pcm),
        failed: (e) => {
          ctx.log.error({ error: String(e) }, 'VAD model failed')
          ctx.fail('pipeline VAD failed')
        },
      },
    )
    // Read now (only when tools are allowed): the devices of the room are asked for their tools as the agent joins.
    if (c.tools) session.watchTools()
    ctx.emit({ kind: 'state', state: 'listening' })
    return session
  }

  onAudio(pcm: Int16Array): void {
    this.segmenter.push(pcm)
  }

  onEvent(event: ServerEvent): void {
    if (event.type !== 'speaking.started') return
    const who = this.ctx.participants().find((p) => p.id === event.participantId)
    if (who?.kind === 'terminal' && this.turn?.speaking) this.bargeIn()
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.turn?.abort.abort()
    this.turn = null
    this.segmenter.close()
    for (const r of this.resamplers.values()) (await r).close()
  }

  private onSpeechStarted(): void {
    if (this.turn?.speaking) this.bargeIn()
  }

  /** Stop the reply being spoken (as a barge-in) or being prepared. */
  private interrupt(): void {
    const turn = this.turn
    if (!turn) return
    if (turn.speaking) return this.bargeIn()
    this.turn = null
    turn.abort.abort()
    this.ctx.audio.clear()
    this.ctx.emit({ kind: 'interrupted' })
    this.ctx.emit({ kind: 'state', state: 'listening' })
  }

  /** A turn of the agent's own, on request: `text` spoken sentence by sentence, kept in the conversation. */
  private async sayNow(text: string): Promise<void> {
    if (this.stopped) return
    const turn: Turn = { abort: new AbortController(), spoken: [], pushedMs: 0, speaking: false }
    this.turn = turn
    const { signal } = turn.abort
    try {
      const splitter = new SentenceSplitter(this.ctx.config.language ?? 'en')
      for (const sentence of [...splitter.push(text), ...splitter.end()]) await this.speak(turn, sentence)
      if (signal.aborted || this.turn !== turn) return
      this.ctx.audio.flush()
      if (!(await whenPlayed(this.ctx.audio, signal))) return
      const said = turn.spoken.map((s) => s.text).join(' ')
      if (said) {
        this.ctx.emit({ kind: 'transcript', role: 'agent', text: said, final: true })
        this.remember({ role: 'assistant', content: said })
      }
      this.endTurn(turn)
    } catch (e) {
      if (this.turn !== turn) return
      if (e instanceof ApiError) this.turnFailed(turn, e)
      else if (!signal.aborted) {
        this.ctx.log.error({ error: scrubSecrets(String(e), this.endpoints.secrets) }, 'pipeline say failed unexpectedly')
        this.ctx.fail('pipeline failed unexpectedly')
      }
    }
  }

  /** Someone talks over the reply: stop it, publish and keep only what the room heard. */
  private bargeIn(): void {
    const turn = this.turn
    if (!turn) return
    this.turn = null
    turn.abort.abort()
    const heardMs = Math.max(0, turn.pushedMs - this.ctx.audio.pendingMs)
    this.ctx.audio.clear()
    const text = heardOfSpoken(turn.spoken, heardMs)
    if (text) {
      this.ctx.emit({ kind: 'transcript', role: 'agent', text, final: true, truncated: true })
      this.remember({ role: 'assistant', content: text })
    }
    this.ctx.emit({ kind: 'interrupted' })
    this.ctx.emit({ kind: 'state', state: 'listening' })
  }

  /** One turn: transcribe the utterance, stream the reply sentence by sentence into speech. */
  private async respond(utterance: Int16Array): Promise<void> {
    if (this.stopped) return
    // A new utterance replaces a reply still being prepared (or interrupts one being spoken).
    if (this.turn?.speaking) this.bargeIn()
    this.turn?.abort.abort()
    const turn: Turn = { abort: new AbortController(), spoken: [], pushedMs: 0, speaking: false }
    this.turn = turn
    const { signal } = turn.abort
    const c = this.ctx.config
    this.ctx.emit({ kind: 'state', state: 'thinking' })
    try {
      const said = (await transcribe(this.endpoints.stt, { model: c.sttModel, ...(c.language ? { language: c.language } : {}) }, wavFile(utterance, VAD_RATE), signal)).trim()
      if (signal.aborted) return
      if (!said) {
        this.endTurn(turn)
        return
      }
      this.ctx.emit({ kind: 'transcript', role: 'user', text: said, final: true })
      this.remember({ role: 'user', content: said })

      const splitter = new SentenceSplitter(c.language ?? 'en')
      let speaking: Promise<void> = Promise.resolve()
      let spokenFailure: unknown = null
      const say = (sentence: string) => {
        speaking = speaking.then(() => this.speak(turn, sentence))
        // A sentence that cannot be spoken ends the reply: the chat stream is aborted too.
        speaking.catch((e: unknown) => {
          spokenFailure ??= e
          turn.abort.abort()
        })
      }
      const messages: ChatMessage[] = [{ role: 'system', content: c.instructions }, ...this.history]
      try {
        // Tool rounds: while the model calls tools (at most maxToolRounds times), carry them out and ask again.
        for (let round = 0; ; round++) {
          const functions = c.tools && round < c.maxToolRounds ? this.tools.functions() : []
          let toolCalls: ReadonlyArray<ToolCall> = []
          let text = ''
          for await (const piece of chatStream(this.endpoints.llm, { model: c.llmModel, messages, functions }, signal)) {
            if (typeof piece !== 'string') {
              toolCalls = piece.toolCalls
              continue
            }
            text += piece
            for (const sentence of splitter.push(piece)) say(sentence)
          }
          if (toolCalls.length === 0 || signal.aborted) break
          messages.push({ role: 'assistant', content: text || null, tool_calls: toolCalls })
          for (const call of toolCalls) {
            const outcome = await this.tools.call(call.function.name, call.function.arguments, signal)
            messages.push({ role: 'tool', tool_call_id: call.id, content: outcome.output })
          }
          if (signal.aborted) break
        }
        for (const sentence of splitter.end()) say(sentence)
        await speaking
      } catch (e) {
        throw spokenFailure ?? e
      }
      if (signal.aborted) return
      this.ctx.audio.flush()
      if (!(await whenPlayed(this.ctx.audio, signal))) return
      const text = turn.spoken.map((s) => s.text).join(' ')
      if (text) {
        this.ctx.emit({ kind: 'transcript', role: 'agent', text, final: true })
        this.remember({ role: 'assistant', content: text })
      }
      this.failedTurns = 0
      this.endTurn(turn)
    } catch (e) {
      // A turn interrupted or replaced meanwhile has nothing more to say, whatever it ran into.
      if (this.turn !== turn) return
      if (e instanceof ApiError) this.turnFailed(turn, e)
      else if (!signal.aborted) {
        this.ctx.log.error({ error: scrubSecrets(String(e), this.endpoints.secrets) }, 'pipeline turn failed unexpectedly')
        this.ctx.fail('pipeline failed unexpectedly')
      }
    }
  }

  /** Speak one sentence: stream its audio, resampled to 16 kHz, into the room. */
  private async speak(turn: Turn, sentence: string): Promise<void> {
    const { signal } = turn.abort
    if (!(await whenPlayed(this.ctx.audio, signal, SPEECH_LEAD_MS))) return
    const c = this.ctx.config
    let spoken: { text: string; ms: number } | null = null
    for await (const chunk of speech(this.endpoints.tts, { model: c.ttsModel, voice: c.voice, input: sentence, format: c.ttsFormat }, signal)) {
      if (signal.aborted || this.turn !== turn) return
      const pcm = chunk.rate === VAD_RATE ? chunk.pcm : (await this.resampler(chunk.rate)).process(chunk.pcm)
      if (pcm.length === 0) continue
      if (!turn.speaking) {
        turn.speaking = true
        this.ctx.emit({ kind: 'state', state: 'speaking' })
      }
      this.ctx.audio.push(pcm)
      const ms = (pcm.length / VAD_RATE) * 1000
      if (!spoken) turn.spoken.push((spoken = { text: sentence, ms: 0 }))
      spoken.ms += ms
      turn.pushedMs += ms
    }
  }

  private resampler(rate: number): Promise<PcmResampler> {
    let r = this.resamplers.get(rate)
    if (!r) this.resamplers.set(rate, (r = PcmResampler.create(rate, VAD_RATE)))
    return r
  }

  private turnFailed(turn: Turn, e: ApiError): void {
    if (this.turn === turn) this.turn = null
    turn.abort.abort()
    const stage = STAGE_NAMES[e.stage]
    this.ctx.log.warn({ stage: e.stage, status: e.status, reason: e.reason, detail: scrubSecrets(e.detail, this.endpoints.secrets) }, 'pipeline turn failed')
    if (e.refused) {
      this.ctx.fail(`pipeline ${stage} refused the request (${e.reason})`)
      return
    }
    this.ctx.audio.clear()
    this.ctx.emit({ kind: 'error', stage: e.stage, reason: e.reason })
    this.ctx.emit({ kind: 'state', state: 'listening' })
    if (++this.failedTurns >= MAX_FAILED_TURNS) this.ctx.fail(`pipeline: ${this.failedTurns} turns failed in a row (${stage}: ${e.reason})`)
  }

  private endTurn(turn: Turn): void {
    if (this.turn === turn) this.turn = null
    this.ctx.emit({ kind: 'state', state: 'listening' })
    const next = this.turn === null ? this.toSay.shift() : undefined
    if (next !== undefined) void this.sayNow(next)
  }

  /** Keep the conversation to the last `maxHistoryTurns` exchanges. */
  private remember(message: ChatMessage): void {
    this.history.push(message)
    const max = this.ctx.config.maxHistoryTurns * 2
    if (this.history.length > max) this.history.splice(0, this.history.length - max)
  }
}

