/**
 * A room's audio router: the data plane. A transport callback calls `forward` directly with the
 * sender's source port; the router frames the packet once and walks a copy-on-write array of
 * sinks that the room actor replaces on every membership change. No actor, Effect, JSON or
 * per-receiver allocation here.
 *
 * Receivers in `mixed` audio mode are kept apart: a room that has any gets a RoomMixer
 * (mixer.ts), which the router calls after the forward sinks; a room that has none never
 * decodes or encodes anything.
 *
 * Forward-mode receivers whose transport offers native fan-out (fanout.ts: uWS pub/sub for
 * WebSocket terminals) are subscribed to the room's topic and get each frame through one publish
 * per frame instead of one `deliver` each; the others (MQTT, agents, another transport, a
 * receiver whose backlog is over its limit) stay on the per-receiver walk. Which receiver goes
 * which way is decided again on every membership, mode or readiness change, never per frame.
 */
import type { AudioMode } from '../events.js'
import type { FanoutHub, FanoutReceiver } from './fanout.js'
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
  /** Its transport's native fan-out, when it has one (fanout.ts). */
  readonly fanout?: FanoutReceiver | null
}

/** A member's sending side in one room; the session keeps it and passes it back on every frame. */
export interface SourcePort {
  readonly sourceId: number
  readonly router: RoomRouter
  seq: number
  readonly activity: SourceActivity
  /** Cleared when the member leaves: late frames through a stale port go nowhere. */
  attached: boolean
  /** The member's own fan-out while it is subscribed to the room's topic (its publish skips it); else null. */
  publisher: FanoutReceiver | null
}

/** Topics are per router, never reused: a room closed and opened again gets a new one. */
let topics = 0

/**
 * Another node with members in this room (core/cluster): gets each frame of this node's own
 * sources once, whatever the number of its members. `send` only appends to a buffer.
 */
export interface RemoteSink {
  send(sourceId: number, uplink: Uint8Array): void
}

/**
 * A recording of the room (core/recordings): hears every frame the router routes, the room's own
 * members' and relayed ones. A plain function that only copies bytes; it must not throw.
 */
export interface RecordingTap {
  frame(sourceId: number, uplink: Uint8Array, now: number): void
}

export interface RouterHooks {
  /** A source just started speaking (control plane; called at most once per talk spurt). */
  speakingStarted(port: SourcePort): void
  /** A member held back by the introduction gate was introduced: its room takes it in as a listener (control plane). */
  listens?(): void
}

export class RoomRouter {
  private all: ReadonlyArray<AudioSink> = []
  private sinks: ReadonlyArray<AudioSink> = []
  private mixer: RoomMixer | null = null
  private remotes: ReadonlyArray<RemoteSink> = []
  private recorder: RecordingTap | null = null
  private readonly ports = new Map<number, SourcePort>()
  /** Native fan-out: the hub, the receivers subscribed to `topic`, and every forward receiver that could be. */
  private readonly topic = `hark-room-${++topics}`
  private hub: FanoutHub | null = null
  private native: ReadonlyArray<FanoutReceiver> = []
  private watched: ReadonlyArray<FanoutReceiver> = []
  private publishedSinceCheck = 0
  /**
   * A receiver is ready again: plan the fan-out again. Made the first time a receiver is watched
   * (one with native fan-out): a room of MQTT devices or agents keeps no closure for it.
   */
  private replanOnce: (() => void) | null = null
  private get replan(): () => void {
    return (this.replanOnce ??= () => this.split())
  }
  framesIn = 0
  framesOut = 0
  /** Frames sent to this room's native receivers with one publish each (framesOut counts their deliveries). */
  framesPublished = 0
  /** Decode and encode work of this room's mixer (kept across mixer restarts). */
  readonly mixStats: MixStats = { framesDecoded: 0, framesEncoded: 0 }

  constructor(
    /** The room this router serves: a member's port names the room it is in (see Session). */
    readonly room: string,
    private readonly hooks: RouterHooks,
  ) {}

  /**
   * A member of this room was just introduced (its `session` event is out): its room, which owns
   * the sink list, adds it as a listener. Straight to the room rather than through the workspace
   * actor that admitted it: one actor event per introduction instead of two, and after a fleet's
   * reconnect every terminal is introduced so.
   */
  listens(): void {
    this.hooks.listens?.()
  }

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
    this.plan(forward)
    if (mixed.length > 0) {
      this.mixer ??= new RoomMixer(this.mixStats)
      this.mixer.setReceivers(mixed)
    } else if (this.mixer !== null) {
      this.mixer.stop()
      this.mixer = null
    }
  }

  /**
   * Split the forward receivers into those reached by one publish (ready receivers of the first
   * hub met) and those walked one by one, and bring the subscriptions in line with that.
   */
  private plan(forward: ReadonlyArray<AudioSink>): void {
    let hub: FanoutHub | null = null
    const native: FanoutReceiver[] = []
    const watched: FanoutReceiver[] = []
    const walked: AudioSink[] = []
    for (const port of this.ports.values()) port.publisher = null
    for (const sink of forward) {
      const fanout = sink.fanout ?? null
      if (fanout !== null && (hub === null || fanout.hub === hub)) {
        watched.push(fanout)
        if (fanout.ready) {
          hub = fanout.hub
          native.push(fanout)
          const port = this.ports.get(sink.sourceId)
          if (port !== undefined) port.publisher = fanout
          continue
        }
      }
      walked.push(sink)
    }
    const stillNative = new Set(native)
    const stillWatched = new Set(watched)
    for (const f of this.native) if (!stillNative.has(f)) f.unsubscribe(this.topic)
    for (const f of this.watched) if (!stillWatched.has(f)) f.unwatch(this.replan)
    const wasNative = new Set(this.native)
    for (const f of watched) f.watch(this.replan)
    // Walked first: a receiver that joins the topic writes what was queued for it before.
    this.sinks = walked
    this.native = native
    this.watched = watched
    this.hub = native.length > 0 ? hub : null
    for (const f of native) if (!wasNative.has(f)) f.subscribe(this.topic)
  }

  /** Every `checkEveryBytes` published: receivers over their backlog limit leave the native fan-out. */
  private checkBacklogs(): void {
    this.publishedSinceCheck = 0
    let behind = false
    for (const f of this.native) if (!f.check()) behind = true
    if (behind) this.split()
  }

  /** Replace the other nodes this room's own frames go to (cluster). The array must not be mutated afterwards. */
  setRemotes(remotes: ReadonlyArray<RemoteSink>): void {
    this.remotes = remotes
  }

  /** Start (a tap) or stop (null) recording this room's frames; only the room actor calls it. */
  setRecorder(tap: RecordingTap | null): void {
    this.recorder = tap
  }

  /** True while the room has receivers of the mixed stream. */
  get hasMixer(): boolean {
    return this.mixer !== null
  }

  addSource(sourceId: number): SourcePort {
    const port: SourcePort = { sourceId, router: this, seq: 0, activity: newSourceActivity(), attached: true, publisher: null }
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
    const remotes = this.remotes
    for (let i = 0; i < remotes.length; i++) remotes[i]!.send(port.sourceId, uplink)
    this.route(port, uplink, now)
  }

  /** Hot path: a frame of a member of another node, relayed here (cluster): to this node's members only. */
  forwardRelayed(port: SourcePort, uplink: Uint8Array, now: number): void {
    if (port.attached) this.route(port, uplink, now)
  }

  private route(port: SourcePort, uplink: Uint8Array, now: number): void {
    const frame = downlinkFromUplink(uplink, port.sourceId, port.seq)
    port.seq = (port.seq + 1) & 0xffff
    this.framesIn++
    const self = port.sourceId
    // Read before publishing: a backlog check below may move a receiver from the topic to the
    // walk, and this frame is already on its way to it through the topic.
    const sinks = this.sinks
    const hub = this.hub
    if (hub !== null) {
      const publisher = port.publisher
      if (publisher !== null) {
        publisher.publish(this.topic, frame)
        this.framesOut += this.native.length - 1
      } else {
        hub.publish(this.topic, frame)
        this.framesOut += this.native.length
      }
      this.framesPublished++
      if ((this.publishedSinceCheck += frame.length) >= hub.checkEveryBytes) this.checkBacklogs()
    }
    for (let i = 0; i < sinks.length; i++) {
      const sink = sinks[i]!
      if (sink.sourceId !== self) {
        sink.deliver(frame)
        this.framesOut++
      }
    }
    const mixer = this.mixer
    if (mixer !== null) mixer.route(self, uplink, frame, now)
    const recorder = this.recorder
    if (recorder !== null) recorder.frame(self, uplink, now)
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
    this.plan([])
    this.remotes = []
    this.recorder = null
    this.mixer?.stop()
    this.mixer = null
  }
}
