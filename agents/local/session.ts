/**
 * One local agent's conversation. Silero VAD cuts the room's mixed audio into utterances; a
 * command decoder follows each as it is heard, so its words are known as it ends. The words go to
 * the preset's brain:
 * - `commands`: matched to an intent, its tool called with the slot values, its reply template
 *   filled with them and the tool's result; words that match no intent get `unrecognizedReply`;
 * - `chat`: the utterance decoded with the general language model, sent to the operator's chat
 *   model with the agent's tools; its reply spoken;
 * - `commands+chat`: commands first, chat for what matches no intent.
 * Replies are spoken by flite sentence by sentence: the next sentence is synthesised while the
 * one before plays. Barge-in: speech confirmed by the VAD, a terminal's `speaking.started` or a
 * `turn.abort` while the agent talks stops the reply at once. An utterance cut at
 * `maxUtteranceMs` (a monologue) is not answered; when the monologue ends the agent says once
 * that it did not catch it.
 */
import { AgentFailure, ERROR_PREFIX, heardOfSpoken, SpeechSegmenter, toolAllowed, ToolRunner, whenPlayed, type AgentContext, type AgentControl, type AgentSession, type ServerEvent, type ToolConfig } from '../../core/provider.js'
import { ChatError, chatTurn, type ChatEndpoint, type ChatMessage } from './chat.js'
import { loadDictionary } from './dictionary.js'
import { missingReason, type FliteVoice, type LocalEngines } from './engines.js'
import { compileCommands, type CompiledCommands, type Intent } from './grammar.js'
import { Recognizer } from './recognizer.js'
import { Voice } from './voice.js'

export interface LocalConfig extends ToolConfig {
  readonly brain: 'commands' | 'chat' | 'commands+chat'
  readonly voice: FliteVoice
  readonly intents: ReadonlyArray<Intent>
  readonly words: Readonly<Record<string, string>>
  readonly unrecognizedReply: string
  readonly toolFailedReply: string
  readonly instructions: string
  readonly vadThreshold: number
  readonly vadSilenceMs: number
  readonly minSpeechMs: number
  readonly maxUtteranceMs: number
  readonly maxHistoryTurns: number
}

export interface LocalDeps {
  readonly engines: LocalEngines
  /** null: no chat endpoint in the server settings. */
  readonly chat: ChatEndpoint | null
  /** Scrubbed from tool_call events (the chat endpoint's address and key). */
  readonly secrets?: ReadonlyArray<string>
}

/**
 * Utterances less than this apart are one burst of speech: a burst longer than `maxUtteranceMs`
 * is a monologue, and "I did not catch that" waits this long for the speaker to go on.
 */
export const BURST_GAP_MS = 1000

interface Turn {
  readonly abort: AbortController
  readonly spoken: Array<{ text: string; ms: number }>
  pushedMs: number
  speaking: boolean
}

type Slots = Record<string, { spoken: string; value: unknown }>

/** `{name}` in `template` → the slot's spoken words, `{result}` → the tool's result text. */
export const fillReply = (template: string, slots: Slots, result: string): string =>
  template.replace(/\{([^}]*)\}/g, (_, name: string) => (name === 'result' ? result : (slots[name]?.spoken ?? '')))

/** A tool's arguments: a string that is exactly `{slot}` becomes the slot's value; `{slot}` inside a string, its spoken words. */
export const fillArguments = (value: unknown, slots: Slots): unknown => {
  if (typeof value === 'string') {
    const whole = /^\{([a-z_][a-z0-9_]*)\}$/.exec(value)
    if (whole && slots[whole[1]!]) return slots[whole[1]!]!.value
    return value.replace(/\{([a-z_][a-z0-9_]*)\}/g, (m, name: string) => slots[name]?.spoken ?? m)
  }
  if (Array.isArray(value)) return value.map((v) => fillArguments(v, slots))
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillArguments(v, slots)]))
  return value
}

const sentencesOf = (text: string): string[] => (text.match(/[^.!?]+[.!?]*/g) ?? []).map((s) => s.trim()).filter((s) => /[a-z0-9]/i.test(s))

export class LocalSession implements AgentSession {
  private segmenter!: SpeechSegmenter
  private commands: CompiledCommands | null = null
  private grammar: Recognizer | null = null
  private languageModel: Recognizer | null = null
  private voice!: Voice
  private turn: Turn | null = null
  private readonly history: ChatMessage[] = []
  private stopped = false
  /** The last utterance: its words (command grammar) and how it ended. */
  private heard = { text: '', cut: false }
  /** Audio of the current burst of speech (utterances and the gaps between them), and of its last utterance, ms. */
  private burstMs = 0
  private utteranceMs = 0
  private monologue = false
  /** "I did not catch that", said unless the speaker goes on within BURST_GAP_MS. */
  private pendingUnrecognized: NodeJS.Timeout | undefined

  /** Every tool call, the chat model's and the grammar's: checked, bounded and reported as for every provider. */
  private readonly tools: ToolRunner

  private constructor(
    private readonly ctx: AgentContext<LocalConfig>,
    private readonly deps: LocalDeps,
  ) {
    this.tools = new ToolRunner(ctx, () => ctx.config, deps.secrets)
  }

  static async open(ctx: AgentContext<LocalConfig>, deps: LocalDeps): Promise<LocalSession> {
    const c = ctx.config
    const missing = missingReason(deps.engines, c.voice)
    if (missing) throw new AgentFailure(missing)
    if (c.brain !== 'commands' && !deps.chat) throw new AgentFailure(`local: brain ${c.brain} needs a chat model (agents.local.chat.baseUrl in the server settings)`)
    const session = new LocalSession(ctx, deps)
    try {
      if (c.brain !== 'chat') {
        const dict = loadDictionary(deps.engines.model!.dictionary)
        session.commands = compileCommands(c.intents, dict, c.words)
        session.grammar = Recognizer.grammar(deps.engines, dict, session.commands.words, c.words, session.commands.jsgf)
      }
      if (c.brain !== 'commands') session.languageModel = Recognizer.languageModel(deps.engines)
      session.voice = Voice.open(deps.engines, c.voice)
    } catch (e) {
      session.release()
      throw new AgentFailure(`local: ${(e as Error).message}`)
    }
    // Read now: the devices of the room are asked for their tools as the agent joins.
    ctx.tools.onChange(() => ctx.emit({ kind: 'tools', tools: ctx.tools.list().map((t) => t.name) }))
    session.segmenter = await SpeechSegmenter.create(
      { threshold: c.vadThreshold, silenceMs: c.vadSilenceMs, minSpeechMs: c.minSpeechMs, prerollMs: 200, maxUtteranceMs: c.maxUtteranceMs },
      {
        speechStarted: () => {
          if (session.turn?.speaking) session.bargeIn()
        },
        utterance: (pcm) => void session.respond(pcm),
        failed: (e) => {
          ctx.log.error({ error: String(e) }, 'VAD model failed')
          ctx.fail('local VAD failed')
        },
        stream: {
          start: (gapMs) => {
            clearTimeout(session.pendingUnrecognized)
            if (gapMs < BURST_GAP_MS) session.burstMs += gapMs
            else {
              session.burstMs = 0
              session.monologue = false
            }
            session.utteranceMs = 0
            session.heard = { text: '', cut: false }
            session.grammar?.begin()
          },
          window: (pcm) => {
            session.utteranceMs += pcm.length / 16
            session.grammar?.feed(pcm)
          },
          end: (confirmed, cut) => {
            session.heard.text = session.grammar?.finish() ?? ''
            session.heard.cut = cut
            if (confirmed) session.burstMs += session.utteranceMs
          },
        },
      },
    )
    ctx.emit({ kind: 'state', state: 'listening' })
    return session
  }

  onAudio(pcm: Int16Array): void {
    this.segmenter.push(pcm)
  }

  onEvent(event: ServerEvent): void {
    if (event.type === 'participant.event' && event.event.kind === 'turn.abort') {
      if (this.turn) this.bargeIn()
      return
    }
    if (event.type !== 'speaking.started') return
    const who = this.ctx.participants().find((p) => p.id === event.participantId)
    if (who?.kind === 'terminal' && this.turn?.speaking) this.bargeIn()
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.pendingUnrecognized)
    this.turn?.abort.abort()
    this.turn = null
    this.segmenter?.close()
    this.release()
  }

  private release(): void {
    this.grammar?.close()
    this.languageModel?.close()
    this.voice?.close()
    this.grammar = this.languageModel = null
  }

  /** Text asked for with `say` (no interrupt) while a reply was under way: said once it ends. */
  private readonly toSay: string[] = []

  /** Live control: say through flite, interrupt as a barge-in (no instructions to update). */
  readonly control: AgentControl = {
    say: (text, { interrupt }) => {
      if (interrupt) this.bargeIn()
      if (this.turn) this.toSay.push(text)
      else this.sayNow(text)
    },
    interrupt: () => {
      this.toSay.length = 0
      this.bargeIn()
    },
  }

  private sayNow(text: string): void {
    if (this.stopped) return
    const turn: Turn = { abort: new AbortController(), spoken: [], pushedMs: 0, speaking: false }
    this.turn = turn
    void this.speak(turn, text)
  }

  /** Someone talks over the reply: stop it; publish what the room heard of it. */
  private bargeIn(): void {
    const turn = this.turn
    if (!turn) return
    this.turn = null
    turn.abort.abort()
    const heardMs = Math.max(0, turn.pushedMs - this.ctx.audio.pendingMs)
    this.ctx.audio.clear()
    const text = heardOfSpoken(turn.spoken, heardMs)
    if (text) this.ctx.emit({ kind: 'transcript', role: 'agent', text, final: true, truncated: true })
    this.ctx.emit({ kind: 'interrupted' })
    this.ctx.emit({ kind: 'state', state: 'listening' })
  }

  /** One utterance has ended (its audio in `pcm`, its words in `heard`). */
  private async respond(pcm: Int16Array): Promise<void> {
    if (this.stopped) return
    const { text, cut } = this.heard
    if (cut || this.monologue || this.burstMs >= this.ctx.config.maxUtteranceMs) {
      // A monologue: not answered piece by piece; once, when the speaker stops.
      this.monologue = true
      return this.unrecognized('monologue')
    }
    if (this.turn?.speaking) this.bargeIn()
    this.turn?.abort.abort()
    const turn: Turn = { abort: new AbortController(), spoken: [], pushedMs: 0, speaking: false }
    this.turn = turn
    const c = this.ctx.config
    try {
      if (this.commands) {
        const matched = text ? this.commands.match(text) : null
        if (matched) {
          this.ctx.emit({ kind: 'transcript', role: 'user', text, final: true })
          this.ctx.emit({ kind: 'intent', intent: matched.intent.name, slots: Object.fromEntries(Object.entries(matched.slots).map(([k, v]) => [k, v.value])) })
          return await this.speak(turn, await this.carryOut(matched.intent, matched.slots, turn.abort.signal))
        }
        if (!this.languageModel) {
          // Nothing, or a lone word (noise, a cough): no answer. Words that are no command: say so.
          this.endTurn(turn)
          if (text.split(/\s+/).filter((w) => w.length > 0).length < 2) return
          this.ctx.emit({ kind: 'transcript', role: 'user', text, final: true })
          return this.unrecognized('no intent')
        }
      }
      const said = await this.languageModel!.decode(pcm)
      if (turn.abort.signal.aborted) return
      if (!said) return this.endTurn(turn)
      this.ctx.emit({ kind: 'transcript', role: 'user', text: said, final: true })
      this.ctx.emit({ kind: 'state', state: 'thinking' })
      const system: ChatMessage = { role: 'system', content: c.instructions }
      const { reply, messages } = await chatTurn(this.deps.chat!, [system, ...this.history], said, this.tools, c.maxToolRounds, turn.abort.signal)
      this.history.push(...messages)
      const max = c.maxHistoryTurns * 4
      if (this.history.length > max) this.history.splice(0, this.history.length - max)
      await this.speak(turn, reply || c.unrecognizedReply)
    } catch (e) {
      if (this.turn !== turn || turn.abort.signal.aborted) return
      if (e instanceof ChatError) {
        this.ctx.log.warn({ reason: e.message }, 'local chat turn failed')
        this.ctx.emit({ kind: 'error', stage: 'chat', reason: e.message })
        return await this.speak(turn, c.toolFailedReply.replace('{result}', 'the chat model did not answer'))
      }
      throw e
    }
  }

  /**
   * Call the intent's tool (if any) and fill its reply. The grammar names the tool, which allows
   * it; a `tools` permission in the config, when there is one, must allow it as well.
   */
  private async carryOut(intent: Intent, slots: Slots, signal: AbortSignal): Promise<string> {
    const c = this.ctx.config
    if (!intent.tool) return fillReply(intent.reply, slots, '')
    const want = intent.tool
    const tool = this.ctx.tools.list().find((t) => (t.name === want.name || t.tool === want.name) && (want.client === undefined || t.clientId === want.client))
    const args = fillArguments(want.arguments ?? {}, slots) as Record<string, unknown>
    let why: string | undefined
    if (!tool) why = 'no device in the room offers it'
    else if (c.tools && !toolAllowed(c.tools, tool.source, tool.name)) why = `the tool ${tool.name} is not allowed for this agent`
    if (why !== undefined) {
      this.ctx.emit({ kind: 'tool_call', name: tool?.name ?? want.name, source: tool?.source ?? 'unknown', arguments: args, error: why, latencyMs: 0 })
      return fillReply(c.toolFailedReply, slots, why)
    }
    const outcome = await this.tools.callTool(tool!, args, signal)
    if (signal.aborted) return ''
    return outcome.isError ? fillReply(c.toolFailedReply, slots, outcome.output.slice(ERROR_PREFIX.length)) : fillReply(intent.reply, slots, outcome.output)
  }

  /** Say `unrecognizedReply`, unless speech goes on within BURST_GAP_MS (then the next utterance decides). */
  private unrecognized(reason: 'no intent' | 'monologue'): void {
    clearTimeout(this.pendingUnrecognized)
    this.pendingUnrecognized = setTimeout(() => {
      if (this.stopped || this.segmenter.inSpeech) return
      this.monologue = false
      this.ctx.emit({ kind: 'unrecognized', reason })
      this.turn?.abort.abort()
      const turn: Turn = { abort: new AbortController(), spoken: [], pushedMs: 0, speaking: false }
      this.turn = turn
      void this.speak(turn, this.ctx.config.unrecognizedReply)
    }, BURST_GAP_MS)
  }

  /** Speak `text` sentence by sentence: each synthesised while the one before plays. */
  private async speak(turn: Turn, text: string): Promise<void> {
    const { signal } = turn.abort
    for (const sentence of sentencesOf(text)) {
      const pcm = await this.voice.say(sentence)
      if (signal.aborted || this.turn !== turn || this.stopped) return
      if (pcm.length === 0) continue
      if (!turn.speaking) {
        turn.speaking = true
        this.ctx.emit({ kind: 'state', state: 'speaking' })
      }
      this.ctx.audio.push(pcm)
      const ms = pcm.length / 16
      turn.spoken.push({ text: sentence, ms })
      turn.pushedMs += ms
    }
    if (signal.aborted || this.turn !== turn) return
    this.ctx.audio.flush()
    if (!(await whenPlayed(this.ctx.audio, signal))) return
    const said = turn.spoken.map((s) => s.text).join(' ')
    if (said) this.ctx.emit({ kind: 'transcript', role: 'agent', text: said, final: true })
    this.endTurn(turn)
  }

  private endTurn(turn: Turn): void {
    if (this.turn === turn) this.turn = null
    this.ctx.emit({ kind: 'state', state: 'listening' })
    const next = this.turn === null ? this.toSay.shift() : undefined
    if (next !== undefined) this.sayNow(next)
  }
}
