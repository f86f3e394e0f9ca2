/**
 * An agent as a room member: what the room actor and router see. Downlink frames of other members
 * are decoded to PCM here (one Opus decoder per source, created on that source's first frame) —
 * only when the session listens to audio, only for agent sinks, and in a microtask after the
 * sender's fan-out, so terminals' forwarding is untouched. PCM goes to the mixer or straight to the session; room events go to the session.
 * Anything a session callback throws is caught and fails the agent, never the router or the room.
 */
import { Decoder } from '@evan/opus'
import type { AgentSession } from '../agentProvider.js'
import type { RoomMember } from '../actors/room.js'
import { DOWNLINK_HEADER_BYTES, DOWNLINK_KIND_OPUS } from '../dataplane/frame.js'
import type { SourcePort } from '../dataplane/roomRouter.js'
import type { ParticipantInfo, ServerEvent } from '../events.js'
import { inAgentScope, type AgentScope } from './faultContainment.js'
import { MixedInput } from './mixedInput.js'

/** Frames waiting for the agent beyond this are dropped, oldest first (a stalled provider). */
const MAX_INBOX = 256

export interface AgentMemberHooks {
  /** The session threw: fail the agent (called at most once). */
  failed(error: unknown, where: string): void
  /** The room took the agent in. */
  joined(room: string, port: SourcePort): void
  /** A source sent a packet its decoder refused (counted, dropped). */
  badPacket(): void
}

export class AgentMember implements RoomMember {
  readonly kind = 'agent' as const
  private session: AgentSession | null = null
  private readonly decoders = new Map<number, Decoder>()
  private readonly others = new Map<string, ParticipantInfo>()
  private readonly bySource = new Map<number, ParticipantInfo>()
  private mixer: MixedInput | null = null
  private broken = false
  private inbox: Uint8Array[] = []
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
    this.mixer?.close()
    this.mixer = null
    this.decoders.clear()
  }

  participants(): ReadonlyArray<ParticipantInfo> {
    return [...this.others.values()]
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
    if (!this.draining) {
      this.draining = true
      queueMicrotask(this.drain)
    }
  }

  private readonly drain = (): void => {
    this.draining = false
    const frames = this.inbox
    this.inbox = []
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
      const from = this.bySource.get(sourceId)
      if (from) this.guard('onSourceAudio', () => session.onSourceAudio!(pcm, from))
    }
  }

  sendEvent(event: ServerEvent): void {
    if (event.type === 'participant.joined') this.add(event.participant)
    else if (event.type === 'participant.left') this.remove(event.participant)
    const session = this.session
    if (session?.onEvent) this.guard('onEvent', () => session.onEvent!(event))
  }

  joined(room: string, port: SourcePort, participants: ReadonlyArray<ParticipantInfo>): void {
    this.port = port
    for (const p of participants) this.add(p)
    this.hooks.joined(room, port)
  }

  private add(p: ParticipantInfo): void {
    this.others.set(p.id, p)
    this.bySource.set(p.sourceId, p)
  }

  private remove(p: ParticipantInfo): void {
    this.others.delete(p.id)
    if (this.bySource.get(p.sourceId)?.id === p.id) this.bySource.delete(p.sourceId)
    this.decoders.delete(p.sourceId)
    this.mixer?.remove(p.sourceId)
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
