/**
 * A room's audio router: the data plane. A transport callback calls `forward` directly with the
 * sender's source port; the router frames the packet once and walks a copy-on-write array of
 * sinks that the room actor replaces on every membership change. No actor, Effect, JSON or
 * per-receiver allocation here.
 *
 * Receivers in `mixed` audio mode are kept apart: a room that has any gets a RoomMixer
 * (mixer.ts), which the router calls after the forward sinks; a room that has none never
 * decodes or encodes anything.
 */
import type { AudioMode } from '../events.js'
import { downlinkFromUplink } from './frame.js'
import { expire, newSourceActivity, observeFrame, type SourceActivity } from './activity.js'
import { RoomMixer, type MixStats } from './mixer.js'

export interface AudioSink {
  /** The receiving member's own source id: its own frames are not sent back to it. */
  readonly sourceId: number
  /** Per-source frames (`forward`, the default) or one mixed stream; read when the list is split. */
  readonly audioMode?: AudioMode
  /** Hand a downlink frame to the receiver; must not throw, and drops rather than queue without bound. */
  deliver(frame: Uint8Array): void
}

/** A member's sending side in one room; the session keeps it and passes it back on every frame. */
export interface SourcePort {
  readonly sourceId: number
  readonly router: RoomRouter
  seq: number
  readonly activity: SourceActivity
  /** Cleared when the member leaves: late frames through a stale port go nowhere. */
  attached: boolean
}

export interface RouterHooks {
  /** A source just started speaking (control plane; called at most once per talk spurt). */
  speakingStarted(port: SourcePort): void
}

export class RoomRouter {
  private all: ReadonlyArray<AudioSink> = []
  private sinks: ReadonlyArray<AudioSink> = []
  private mixer: RoomMixer | null = null
  private readonly ports = new Map<number, SourcePort>()
  framesIn = 0
  framesOut = 0
  /** Decode and encode work of this room's mixer (kept across mixer restarts). */
  readonly mixStats: MixStats = { framesDecoded: 0, framesEncoded: 0 }

  constructor(
    /** The room this router serves: a member's port names the room it is in (see Session). */
    readonly room: string,
    private readonly hooks: RouterHooks,
  ) {}

  /** Replace the sink list (membership changed). The array must not be mutated afterwards. */
  setSinks(sinks: ReadonlyArray<AudioSink>): void {
    this.all = sinks
    this.split()
  }

  /** A member changed its audio mode: split the current sinks again by their `audioMode`. */
  refreshAudioModes(): void {
    this.split()
  }

  private split(): void {
    const forward: AudioSink[] = []
    const mixed: AudioSink[] = []
    for (const sink of this.all) (sink.audioMode === 'mixed' ? mixed : forward).push(sink)
    this.sinks = forward
    if (mixed.length > 0) {
      this.mixer ??= new RoomMixer(this.mixStats)
      this.mixer.setReceivers(mixed)
    } else if (this.mixer !== null) {
      this.mixer.stop()
      this.mixer = null
    }
  }

  /** True while the room has receivers of the mixed stream. */
  get hasMixer(): boolean {
    return this.mixer !== null
  }

  addSource(sourceId: number): SourcePort {
    const port: SourcePort = { sourceId, router: this, seq: 0, activity: newSourceActivity(), attached: true }
    this.ports.set(sourceId, port)
    return port
  }

  removeSource(sourceId: number): void {
    const port = this.ports.get(sourceId)
    if (port) port.attached = false
    this.ports.delete(sourceId)
    this.mixer?.removeSource(sourceId)
  }

  /**
   * Hot path: one uplink frame (V|level byte + Opus) from `port`'s member to every other member.
   * `uplink` may be a view the transport reuses: it is copied (or decoded) before this returns.
   */
  forward(port: SourcePort, uplink: Uint8Array, now: number): void {
    if (!port.attached) return
    const frame = downlinkFromUplink(uplink, port.sourceId, port.seq)
    port.seq = (port.seq + 1) & 0xffff
    this.framesIn++
    const sinks = this.sinks
    const self = port.sourceId
    for (let i = 0; i < sinks.length; i++) {
      const sink = sinks[i]!
      if (sink.sourceId !== self) {
        sink.deliver(frame)
        this.framesOut++
      }
    }
    const mixer = this.mixer
    if (mixer !== null) mixer.route(self, uplink, frame, now)
    if (observeFrame(port.activity, uplink[0]!, now)) this.hooks.speakingStarted(port)
  }

  /** Sources whose talk spurt ended by `now` (control plane timer). */
  expireSpeakers(now: number): SourcePort[] {
    const stopped: SourcePort[] = []
    for (const port of this.ports.values()) if (expire(port.activity, now)) stopped.push(port)
    return stopped
  }

  get anyoneSpeaking(): boolean {
    for (const port of this.ports.values()) if (port.activity.speaking) return true
    return false
  }

  /** Free the mixer's timer and codecs, and detach any port left (the room closed). */
  dispose(): void {
    for (const port of this.ports.values()) port.attached = false
    this.ports.clear()
    this.all = []
    this.sinks = []
    this.mixer?.stop()
    this.mixer = null
  }
}
