/**
 * An agent as a room member: what the room actor and router see. Downlink frames of other members
 * are decoded to PCM here (one Opus decoder per source, created on that source's first frame) —
 * only when the session listens to audio, only for agent sinks, and in a microtask after the
 * sender's fan-out, so terminals' forwarding is untouched. PCM goes to the mixer or straight to the session; room events go to the session.
 * Room events reach the session in the same microtask as frames, after the room's step — by then
 * the room's roster (read through `hooks.roster`, the room-agents actor's; never a copy kept here)
 * has the change the event tells of, so `participants()` in a callback agrees with it — and before
 * the frames still waiting, as when events were told at once (a barge-in is heard before the audio
 * that set it off).
 * Anything a session callback throws is caught and fails the agent, never the router or the room.
 */
import { Decoder } from '@evan/opus'
import type { AgentSession } from '../agentProvider.js'
import type { RoomMember, RoomRoster } from '../actors/room.js'
import { DOWNLINK_HEADER_BYTES, DOWNLINK_KIND_OPUS } from '../dataplane/frame.js'
import type { SourcePort } from '../dataplane/roomRouter.js'
import type { ParticipantInfo, ServerEvent } from '../events.js'
import { inAgentScope, type AgentScope } from './faultContainment.js'
import { MixedInput } from './mixedInput.js'

/** Frames waiting for the agent beyond this are dropped, oldest first (a stalled provider). */
const MAX_INBOX = 256

/** In the inbox: the room took the agent in (told after the room's step, in order with what follows). */
const IN_ROOM = 0

export interface AgentMemberHooks {
  /** The session threw: fail the agent (called at most once). */
  failed(error: unknown, where: string): void
  /** The room took the agent in (inside the room's step: data plane only). */
  joined(room: string, port: SourcePort): void
  /** The room took the agent in, told after the room's step (the roster has the agent's room). */
  inRoom(): void
  /** Who is in the room now: the room's roster (its room-agents actor's). */
  roster(): RoomRoster
  /** A source sent a packet its decoder refused (counted, dropped). */
  badPacket(): void
}

export class AgentMember implements RoomMember {
  readonly kind = 'agent' as const
  private session: AgentSession | null = null
  private readonly decoders = new Map<number, Decoder>()
  private mixer: MixedInput | null = null
  private broken = false
  private inbox: Uint8Array[] = []
  /** Room events (and the join) waiting for the next drain, told before its frames. */
  private events: Array<ServerEvent | typeof IN_ROOM> = []
  private draining = false
  port: SourcePort | null = null

  /** Provider callbacks run in this scope, so their later async faults fail this agent only. */
  private readonly scope: AgentScope

  constructor(
    readonly id: string,
    readonly name: string | null,
    private readonly hooks: AgentMemberHooks,
  ) {
    this.scope = { agentId: id, fail: (e) => this.fail(e, 'async') }
  }

  /** Start handing audio and events to the session (after the provider started it). */
  listen(session: AgentSession): void {
    this.session = session
    if (session.onAudio) {
      const onAudio = session.onAudio.bind(session)
      this.mixer = new MixedInput((pcm) => this.guard('onAudio', () => onAudio(pcm)))
    }
  }

  /** Stop listening: frames and events arriving after this are dropped. */
  mute(): void {
    this.session = null
    this.inbox = []
    this.events = []
    this.mixer?.close()
    this.mixer = null
    this.decoders.clear()
  }

  /** The other members of its room (none before it joined). */
  participants(): ReadonlyArray<ParticipantInfo> {
    if (this.port === null) return []
    return this.hooks.roster().participants.filter((p) => p.id !== this.id)
  }

  /**
   * Data plane, called inside another member's forward: only keep the (shared, immutable) frame
   * and schedule the work, so decoding and the provider's callbacks run after the sender's
   * fan-out has finished, never inside it.
   */
  deliver(frame: Uint8Array): void {
    const session = this.session
    if (session === null || (this.mixer === null && !session.onSourceAudio)) return
    this.inbox.push(frame)
    if (this.inbox.length > MAX_INBOX) this.inbox.shift()
    this.scheduleDrain()
  }

  private queueEvent(entry: ServerEvent | typeof IN_ROOM): void {
    this.events.push(entry)
    this.scheduleDrain()
  }

  private scheduleDrain(): void {
    if (!this.draining) {
      this.draining = true
      queueMicrotask(this.drain)
    }
  }

  private readonly drain = (): void => {
    this.draining = false
    const events = this.events
    const frames = this.inbox
    this.events = []
    this.inbox = []
    for (const event of events) {
      if (event === IN_ROOM) this.hooks.inRoom()
      else this.tell(event)
    }
    for (const frame of frames) this.hear(frame)
  }

  private hear(frame: Uint8Array): void {
    const session = this.session
    if (session === null) return
    if (frame.length <= DOWNLINK_HEADER_BYTES || frame[0] !== DOWNLINK_KIND_OPUS) return
    const sourceId = (frame[2]! << 8) | frame[3]!
    let decoder = this.decoders.get(sourceId)
    if (!decoder) this.decoders.set(sourceId, (decoder = new Decoder({ channels: 1, sample_rate: 16000 })))
    let bytes: Uint8Array
    try {
      bytes = decoder.decode(frame.subarray(DOWNLINK_HEADER_BYTES))
    } catch {
      // A terminal's malformed Opus costs that packet only.
      this.hooks.badPacket()
      return
    }
    // The decoder returns a fresh, aligned buffer per packet: viewing it as int16 copies nothing.
    const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 1)
    this.mixer?.push(sourceId, pcm)
    if (session.onSourceAudio) {
      const from = this.hooks.roster().bySource.get(sourceId)
      if (from) this.guard('onSourceAudio', () => session.onSourceAudio!(pcm, from))
    }
  }

  /** Control plane, inside the room's step: told to the session after it, in order with the frames. */
  sendEvent(event: ServerEvent): void {
    if (this.session !== null) this.queueEvent(event)
  }

  private tell(event: ServerEvent): void {
    // A source that left: its decoder and its mix input go (a later member may get its source id).
    if (event.type === 'participant.left') this.forget(event.participant.sourceId)
    const session = this.session
    if (session?.onEvent) this.guard('onEvent', () => session.onEvent!(event))
  }

  joined(room: string, port: SourcePort, _participants: ReadonlyArray<ParticipantInfo>): void {
    this.port = port
    this.hooks.joined(room, port)
    this.queueEvent(IN_ROOM)
  }

  private forget(sourceId: number): void {
    this.decoders.delete(sourceId)
    this.mixer?.remove(sourceId)
  }

  private guard(where: string, f: () => unknown): void {
    if (this.broken) return
    try {
      const r = inAgentScope(this.scope, f)
      // A callback that returns a promise may reject later: that fails the agent too.
      if (r instanceof Promise) r.catch((e: unknown) => this.fail(e, where))
    } catch (e) {
      this.fail(e, where)
    }
  }

  private fail(e: unknown, where: string): void {
    if (this.broken) return
    this.broken = true
    this.mute()
    this.hooks.failed(e, where)
  }
}
