/**
 * The mixed-stream path of a room: receivers that asked for `mixed` audio (small devices, WebRTC
 * peers) get one stream instead of one per source. The rule, per receiver and per frame:
 *
 *   - a receiver never hears itself (mix-minus);
 *   - a source is *active* while its last voiced frame (V bit set) is at most MIX_HOLD_MS old;
 *     frames of inactive sources are not sent to mixed receivers at all;
 *   - exactly one other active source: its frames are forwarded untouched (the shared frame,
 *     with the source's id in the header) — no decoding;
 *   - two or more other active sources: their frames are decoded (@evan/opus) into per-source
 *     jitter buffers and a 20 ms clock sums them, encodes the sum once per distinct mix
 *     (everyone, or everyone minus one active receiver) and sends it with source id 0.
 *
 * Forward-mode receivers never reach this file: a room without mixed receivers has no mixer,
 * and the router calls `route` only after the forward sinks are served. This is the slow path:
 * it may allocate (decoded PCM, encoded packets), but only while several sources talk at once.
 */
import { Decoder, Encoder } from '@evan/opus'
import { downlinkFromOpus, levelByteFromPcm, MIXED_SOURCE_ID, voiceFlag } from './frame.js'
import { PcmFifo } from './pcmFifo.js'

/** Sample rate of every Opus stream in Hark (decoders may run at any rate; we mix at this one). */
export const MIX_SAMPLE_RATE = 16000
/** Duration of one mixed frame. */
export const MIX_FRAME_MS = 20
export const MIX_FRAME_SAMPLES = (MIX_SAMPLE_RATE * MIX_FRAME_MS) / 1000
/** A source stays active this long after its last voiced frame (bridges pauses between words). */
export const MIX_HOLD_MS = 300
/** Jitter buffer per source: at most 120 ms of audio waits to be mixed; older samples are dropped. */
export const MIX_BUFFER_SAMPLES = (MIX_SAMPLE_RATE * 120) / 1000
/** Bitrate of mixed frames (wideband speech). */
export const MIX_BITRATE = 24000
/** The clock stops after this many ticks without anything to mix (and frees its codecs). */
const IDLE_TICKS_BEFORE_STOP = 5
/** An encoder unused for this many ticks is dropped. */
const ENCODER_IDLE_TICKS = 50
/** At most this many ticks are produced at once when the timer was late; beyond, the clock resyncs. */
const MAX_CATCH_UP_TICKS = 3

/** A receiver of the mixed stream: the same shape as a router sink. */
export interface MixReceiver {
  readonly sourceId: number
  deliver(frame: Uint8Array): void
}

/** Counters shared with the router, read by /metrics. */
export interface MixStats {
  framesDecoded: number
  framesEncoded: number
}

interface MixSource {
  readonly sourceId: number
  lastVoicedAt: number
  decoder: Decoder | null
  readonly fifo: PcmFifo
  /** This tick's slice of the source's audio. */
  readonly slot: Int16Array
}

interface MixOutput {
  readonly encoder: Encoder
  seq: number
  lastTick: number
  /** The frame of the current tick, shared by every receiver of this mix. */
  frame: Uint8Array | null
}

/** Key of a mix: 0 = all active sources, otherwise the source id of the active receiver left out. */
const EVERYONE = 0

const newEncoder = (): Encoder => {
  const encoder = new Encoder({ channels: 1, sample_rate: MIX_SAMPLE_RATE, application: 'voip' })
  encoder.bitrate = MIX_BITRATE
  return encoder
}

export class RoomMixer {
  private receivers: ReadonlyArray<MixReceiver> = []
  private readonly sources = new Map<number, MixSource>()
  private readonly outputs = new Map<number, MixOutput>()
  private timer: NodeJS.Timeout | null = null
  private nextTickAt = 0
  private tickCount = 0
  private idleTicks = 0
  private readonly total = new Int32Array(MIX_FRAME_SAMPLES)
  private readonly pcm = new Int16Array(MIX_FRAME_SAMPLES)
  private readonly activeNow: MixSource[] = []

  constructor(
    private readonly stats: MixStats,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Replace the receivers asking for the mixed stream (copy-on-write, like the router's sinks). */
  setReceivers(receivers: ReadonlyArray<MixReceiver>): void {
    this.receivers = receivers
  }

  /** A member left the room: forget its buffer and decoder. */
  removeSource(sourceId: number): void {
    this.sources.delete(sourceId)
    this.outputs.delete(sourceId)
  }

  /** Stop the clock and free every codec (the room has no mixed receiver any more). */
  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    this.sources.clear()
    this.outputs.clear()
  }

  get running(): boolean {
    return this.timer !== null
  }

  /**
   * One source frame (called by the router after the forward sinks). `uplink` is only valid
   * during this call; `frame` is the shared downlink frame of the same packet.
   */
  route(sourceId: number, uplink: Uint8Array, frame: Uint8Array, now: number): void {
    let source = this.sources.get(sourceId)
    if (source === undefined) {
      source = {
        sourceId,
        lastVoicedAt: -Infinity,
        decoder: null,
        fifo: new PcmFifo(MIX_BUFFER_SAMPLES),
        slot: new Int16Array(MIX_FRAME_SAMPLES),
      }
      this.sources.set(sourceId, source)
    }
    if (voiceFlag(uplink[0]!)) source.lastVoicedAt = now
    if (now - source.lastVoicedAt > MIX_HOLD_MS) return

    let active = 0
    for (const s of this.sources.values()) if (now - s.lastVoicedAt <= MIX_HOLD_MS) active++
    let mixNeeded = false
    const receivers = this.receivers
    for (let i = 0; i < receivers.length; i++) {
      const r = receivers[i]!
      if (r.sourceId === sourceId) continue
      const others = active - (this.isActive(r.sourceId, now) ? 1 : 0)
      if (others === 1) r.deliver(frame)
      else mixNeeded = true
    }
    if (!mixNeeded) return
    this.decode(source, uplink)
    if (this.timer === null) this.start(now)
  }

  private isActive(sourceId: number, now: number): boolean {
    const s = this.sources.get(sourceId)
    return s !== undefined && now - s.lastVoicedAt <= MIX_HOLD_MS
  }

  private decode(source: MixSource, uplink: Uint8Array): void {
    source.decoder ??= new Decoder({ channels: 1, sample_rate: MIX_SAMPLE_RATE })
    let bytes: Uint8Array
    try {
      bytes = source.decoder.decode(uplink.subarray(1))
    } catch {
      // A corrupt packet costs that source one frame in the mix, nothing else.
      return
    }
    this.stats.framesDecoded++
    source.fifo.push(new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 1))
  }

  private start(now: number): void {
    // The first tick waits one frame: a frame of buffering absorbs arrival jitter.
    this.nextTickAt = now + MIX_FRAME_MS
    this.idleTicks = 0
    this.schedule(now)
  }

  private schedule(now: number): void {
    this.timer = setTimeout(this.onTimer, Math.max(0, this.nextTickAt - now))
    this.timer.unref()
  }

  private readonly onTimer = (): void => {
    this.timer = null
    const now = this.now()
    let ticks = 0
    while (now >= this.nextTickAt && ticks < MAX_CATCH_UP_TICKS) {
      if (!this.tick(now)) return
      this.nextTickAt += MIX_FRAME_MS
      ticks++
    }
    if (now - this.nextTickAt > MIX_FRAME_MS * MAX_CATCH_UP_TICKS) this.nextTickAt = now + MIX_FRAME_MS
    this.schedule(now)
  }

  /** One 20 ms step of the clock; false when the mixer went idle and stopped. */
  tick(now: number): boolean {
    this.tickCount++
    const active = this.activeNow
    active.length = 0
    for (const s of this.sources.values()) {
      if (now - s.lastVoicedAt <= MIX_HOLD_MS) active.push(s)
      else if (s.fifo.length > 0) s.fifo.clear()
    }
    const receivers = this.receivers
    let anyMix = false
    if (active.length >= 2) {
      for (let i = 0; i < receivers.length && !anyMix; i++) {
        const r = receivers[i]!
        if (active.length - (this.isActive(r.sourceId, now) ? 1 : 0) >= 2) anyMix = true
      }
    }
    if (!anyMix) {
      if (++this.idleTicks >= IDLE_TICKS_BEFORE_STOP) {
        this.goIdle()
        return false
      }
      return true
    }
    this.idleTicks = 0

    const total = this.total
    total.fill(0)
    for (const s of active) {
      s.fifo.take(s.slot)
      const slot = s.slot
      for (let i = 0; i < MIX_FRAME_SAMPLES; i++) total[i]! += slot[i]!
    }
    for (const out of this.outputs.values()) out.frame = null
    for (let i = 0; i < receivers.length; i++) {
      const r = receivers[i]!
      const self = this.isActive(r.sourceId, now) ? this.sources.get(r.sourceId)! : null
      if (active.length - (self ? 1 : 0) < 2) continue
      const key = self ? r.sourceId : EVERYONE
      let out = this.outputs.get(key)
      if (out === undefined) {
        out = { encoder: newEncoder(), seq: 0, lastTick: 0, frame: null }
        this.outputs.set(key, out)
      }
      if (out.frame === null) out.frame = this.encode(out, self)
      if (out.frame !== null) r.deliver(out.frame)
    }
    for (const [key, out] of this.outputs) if (this.tickCount - out.lastTick > ENCODER_IDLE_TICKS) this.outputs.delete(key)
    return true
  }

  /** Sum minus the receiver's own slot, clipped to 16 bits, encoded and framed with source id 0. */
  private encode(out: MixOutput, leaveOut: MixSource | null): Uint8Array | null {
    const total = this.total
    const pcm = this.pcm
    const own = leaveOut?.slot
    for (let i = 0; i < MIX_FRAME_SAMPLES; i++) {
      const v = own ? total[i]! - own[i]! : total[i]!
      pcm[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v
    }
    let opus: Uint8Array
    try {
      opus = out.encoder.encode(pcm)
    } catch {
      return null
    }
    this.stats.framesEncoded++
    out.lastTick = this.tickCount
    const frame = downlinkFromOpus(opus, levelByteFromPcm(pcm), MIXED_SOURCE_ID, out.seq)
    out.seq = (out.seq + 1) & 0xffff
    return frame
  }

  private goIdle(): void {
    for (const s of this.sources.values()) {
      s.decoder = null
      s.fifo.clear()
    }
    this.outputs.clear()
  }
}
