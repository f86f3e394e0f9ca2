/**
 * An agent's conversation as turns, from what its provider emits (`ctx.emit`) and what its room
 * tells it — at the runtime, so every provider gets a transcript, an embedder's included. The
 * provider's events it reads (spec/agents.md, "Transcripts"):
 *   - `{kind:'transcript', role, text, final, truncated?, clientId?}`: a final one is a speech turn;
 *     `truncated` marks a reply cut by a barge-in, its text what the room heard;
 *   - `{kind:'state', state:'speaking'}`: when the agent's reply started;
 *   - `{kind:'interrupted'}`: a barge-in (a reply nothing of which was heard, or an echo cut short);
 *   - `{kind:'tool_call', name, source?, arguments, result | error | isError, latencyMs? | ms?}`;
 *   - `{kind:'echo', durationMs}`: the echo provider's utterance played back (no text).
 * From the room: terminals' `speaking.started`/`stopped` (when a user turn began and ended, who
 * spoke, who talked over a reply) and `turn.abort` (who stopped a reply's playback). Control plane only: a few events per turn, never per frame.
 */
import type { ServerEvent } from '../events.js'
import type { ToolCallRecord, TranscriptTurn } from '../storage/transcripts.js'

/** What the recorder needs of the agent and its room. */
export interface RecorderDeps {
  /** The agent's identity in its room (the speaker of its turns). */
  readonly identity: string
  /** Wall time (the engine's clock). */
  readonly now: () => number
  /** Whether a room participant is a terminal (not another agent). */
  readonly isTerminal: (participantId: string) => boolean
  /** Milliseconds of the agent's audio the room has not heard yet (its playout). */
  readonly pendingAudioMs: () => number
  /** A finished turn, in order. */
  readonly turn: (turn: TranscriptTurn) => void
}

/** Speech older than this does not start a user turn (noise nobody transcribed). */
const SPEECH_WINDOW_MS = 60_000

type Draft = Omit<TranscriptTurn, 'seq'>

export class ConversationRecorder {
  private seq = 0
  /** Terminals that started speaking since the last user turn: client id → when. */
  private spoke = new Map<string, number>()
  /** Terminals talking now (a talk spurt may span several turns). */
  private readonly talking = new Set<string>()
  private lastStopped = 0
  /** The last terminal to start talking, and when (who cut a reply). */
  private lastTalker: { readonly clientId: string; readonly at: number } | null = null
  private speakingSince: number | null = null
  /** The last turn was a cut reply: an `interrupted` right after it says nothing new. */
  private justCut = false
  /** An echo being played: a turn once it has played out or was cut. */
  private playing: { draft: Draft; timer: NodeJS.Timeout | null } | null = null
  private ended = false

  constructor(private readonly deps: RecorderDeps) {}

  /** A provider event (already checked to be a small JSON object). */
  agentEvent(e: Readonly<Record<string, unknown>>): void {
    if (this.ended) return
    const now = this.deps.now()
    switch (e.kind) {
      case 'state':
        if (e.state === 'speaking') this.speakingSince ??= now
        return
      case 'transcript':
        if (e.final === false || typeof e.text !== 'string') return
        if (e.role === 'user') this.userTurn(now, e.text, typeof e.clientId === 'string' ? e.clientId : null)
        else if (e.role === 'agent') this.agentTurn(now, e.text, e.truncated === true)
        return
      case 'interrupted':
        if (this.justCut) this.justCut = false
        else if (this.playing) this.finishEcho(now, true)
        else if (this.speakingSince !== null) this.agentTurn(now, null, true)
        return
      case 'tool_call':
        this.toolCall(now, e)
        return
      case 'echo':
        if (typeof e.durationMs === 'number' && Number.isFinite(e.durationMs)) this.echo(now, Math.max(0, Math.round(e.durationMs)))
        return
    }
  }

  /** A room event the agent heard. */
  roomEvent(e: ServerEvent): void {
    if (this.ended) return
    if (e.type === 'speaking.started' && e.participantId !== this.deps.identity && this.deps.isTerminal(e.participantId)) {
      const now = this.deps.now()
      if (!this.spoke.has(e.participantId)) this.spoke.set(e.participantId, now)
      this.talking.add(e.participantId)
      this.lastTalker = { clientId: e.participantId, at: now }
    } else if (e.type === 'speaking.stopped' && this.talking.delete(e.participantId)) {
      this.lastStopped = this.deps.now()
    } else if (e.type === 'participant.event' && e.event.kind === 'turn.abort' && this.deps.isTerminal(e.participantId)) {
      // A device that stopped its playback (xiaozhi's abort) cut the reply without a word.
      this.lastTalker = { clientId: e.participantId, at: this.deps.now() }
    }
  }

  /** The agent ended: what is in progress is finished as it stands. */
  end(): void {
    if (this.ended) return
    // Stopped mid-echo: the playback stopped with it.
    if (this.playing) this.finishEcho(this.deps.now(), false, true)
    this.ended = true
  }

  private userTurn(now: number, text: string | null, clientId: string | null, startedAt?: number): void {
    this.justCut = false
    for (const [id, at] of this.spoke) if (now - at > SPEECH_WINDOW_MS) this.spoke.delete(id)
    const starts = [...this.spoke.values()]
    const start = startedAt ?? (starts.length > 0 ? Math.min(...starts) : now)
    const end = startedAt !== undefined || this.talking.size > 0 ? now : this.lastStopped >= start ? this.lastStopped : now
    // Mixed input is the room's; a terminal when the provider says, or when it alone spoke.
    const spoke = new Set([...this.spoke.keys(), ...this.talking])
    const who = clientId ?? (spoke.size === 1 ? [...spoke][0]! : null)
    this.spoke = new Map()
    this.push({
      kind: 'speech', role: 'user', speaker: who ?? 'room', clientId: who, text, startedAt: start, endedAt: Math.max(start, end),
      interrupted: false, interruptedBy: null, tool: null,
    })
  }

  private agentTurn(now: number, text: string | null, cut: boolean): void {
    const start = this.speakingSince ?? now
    this.speakingSince = null
    this.push({
      kind: 'speech', role: 'agent', speaker: this.deps.identity, clientId: null, text, startedAt: start, endedAt: now,
      interrupted: cut, interruptedBy: cut ? this.talkerSince(start) : null, tool: null,
    })
    this.justCut = cut
  }

  private toolCall(now: number, e: Readonly<Record<string, unknown>>): void {
    if (typeof e.name !== 'string') return
    // `latencyMs` ("Agents that act"), or `ms` (the local provider's).
    const ms = typeof e.latencyMs === 'number' ? e.latencyMs : e.ms
    const latencyMs = typeof ms === 'number' && Number.isFinite(ms) ? Math.max(0, Math.round(ms)) : null
    const error = typeof e.error === 'string' ? e.error : e.isError === true ? String(e.result ?? 'error') : null
    const tool: ToolCallRecord = {
      name: e.name,
      source: typeof e.source === 'string' ? e.source : null,
      arguments: e.arguments ?? null,
      result: error === null ? (e.result ?? null) : null,
      error,
      latencyMs,
    }
    this.push({
      kind: 'tool_call', role: 'agent', speaker: this.deps.identity, clientId: null, text: null,
      startedAt: now - (latencyMs ?? 0), endedAt: now, interrupted: false, interruptedBy: null, tool,
    })
  }

  /** The echo heard an utterance and plays it back: a user turn (no text), then the echo's own. */
  private echo(now: number, durationMs: number): void {
    if (this.playing) this.finishEcho(now, false)
    this.userTurn(now, null, null, now - durationMs)
    const draft: Draft = {
      kind: 'speech', role: 'agent', speaker: this.deps.identity, clientId: null, text: null, startedAt: now,
      endedAt: now + durationMs, interrupted: false, interruptedBy: null, tool: null,
    }
    // Real time, like the playout it follows: the echo is a turn once the room has heard it.
    const timer = setTimeout(() => this.playing?.draft === draft && this.finishEcho(this.deps.now(), false), Math.max(durationMs, this.deps.pendingAudioMs()) + 20)
    timer.unref()
    this.playing = { draft, timer }
  }

  private finishEcho(now: number, cut: boolean, stopped = false): void {
    const p = this.playing!
    this.playing = null
    if (p.timer) clearTimeout(p.timer)
    const { draft } = p
    this.speakingSince = null
    const endedAt = cut || stopped ? Math.max(draft.startedAt, Math.min(now, draft.endedAt)) : draft.endedAt
    this.push({ ...draft, endedAt, interrupted: cut, interruptedBy: cut ? this.talkerSince(draft.startedAt) : null })
  }

  private talkerSince(start: number): string | null {
    return this.lastTalker !== null && this.lastTalker.at >= start - 1000 ? this.lastTalker.clientId : null
  }

  private push(draft: Draft): void {
    this.deps.turn({ seq: ++this.seq, ...draft })
  }
}
