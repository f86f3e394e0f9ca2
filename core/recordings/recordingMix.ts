/**
 * The `mixed` track of a recording: every source of the room summed on one time line and encoded
 * once (@evan/opus, 16 kHz, 20 ms). The hot path only copies a voiced packet and its arrival time
 * into the source's arena; decoding, summing and encoding run on the recorder's flush timer, a
 * second at a time, each packet placed at the time it arrived so talkers stay aligned. A stretch
 * nobody talks in costs no encode: it is written as Opus silence packets.
 */
import { Decoder, Encoder } from '@evan/opus'
import { voiceFlag } from '../dataplane/frame.js'
import { MIX_BITRATE, MIX_HOLD_MS } from '../dataplane/mixer.js'
import { SAMPLES_20MS, SILENCE_PACKET, type OggOpusStream } from './oggOpus.js'

const RATE = 16000
const TICK = 320
/** Per source: 4 s of 16 kHz PCM on an absolute time line (a power of two: positions wrap with a mask). */
const RING = 1 << 16
const MASK = RING - 1
/** Queued packets per source between two flushes (a second of 20 ms frames is 50). */
const QUEUE = 256
const ARENA = 64 * 1024
/** A source this far behind its arrival time jumps ahead (it was quiet); closer, it plays on where it was. */
const GAP = (RATE * 60) / 1000
/** The lookahead of libopus at 16 kHz, 6.5 ms, in 48 kHz samples (the stream's pre-skip). */
export const MIX_PRE_SKIP = 312

interface MixSource {
  lastVoicedAt: number
  decoder: Decoder | null
  readonly arena: Uint8Array
  arenaBytes: number
  readonly starts: Int32Array
  readonly ends: Int32Array
  readonly arrivals: Float64Array
  count: number
  /** Where its next decoded sample goes (16 kHz samples since the recording started). */
  pos: number
  readonly ring: Int16Array
}

export class RecordingMix {
  private readonly sources = new Map<number, MixSource>()
  private readonly encoder = new Encoder({ channels: 1, sample_rate: RATE, application: 'voip' })
  private readonly total = new Int32Array(TICK)
  private readonly pcm = new Int16Array(TICK)
  /** 16 kHz samples mixed so far (the stream's time line: its granule is three times this). */
  mixed = 0
  framesEncoded = 0
  framesDecoded = 0
  dropped = 0

  constructor(
    private readonly stream: OggOpusStream,
    /** Monotonic ms of the recording's start (the frames' time line). */
    private readonly startedAt: number,
    /** Write a page the stream closed (a full page on the flush path). */
    private readonly page: (page: Buffer) => void,
  ) {
    this.encoder.bitrate = MIX_BITRATE
  }

  /** Hot path: queue a copy of a voiced packet (or one within MIX_HOLD_MS of voice). */
  frame(sourceId: number, uplink: Uint8Array, now: number): void {
    let s = this.sources.get(sourceId)
    if (s === undefined) {
      s = {
        lastVoicedAt: -Infinity, decoder: null, arena: new Uint8Array(ARENA), arenaBytes: 0, starts: new Int32Array(QUEUE),
        ends: new Int32Array(QUEUE), arrivals: new Float64Array(QUEUE), count: 0, pos: 0, ring: new Int16Array(RING),
      }
      this.sources.set(sourceId, s)
    }
    if (voiceFlag(uplink[0]!)) s.lastVoicedAt = now
    else if (now - s.lastVoicedAt > MIX_HOLD_MS) return
    const length = uplink.length - 1
    if (s.count === QUEUE || s.arenaBytes + length > ARENA) {
      this.dropped++
      return
    }
    const arena = s.arena
    let at = s.arenaBytes
    s.starts[s.count] = at
    for (let i = 1; i < uplink.length; i++) arena[at++] = uplink[i]!
    s.ends[s.count] = at
    s.arrivals[s.count++] = now
    s.arenaBytes = at
  }

  /** A member left: what it queued goes onto the time line now; the source is dropped by a later flush, once mixed past and quiet. */
  removeSource(sourceId: number): void {
    const s = this.sources.get(sourceId)
    if (s !== undefined) this.decodeQueued(s)
  }

  /** Off the hot path: decode what was queued and mix up to `now` less `lagMs`. */
  flush(now: number, lagMs: number): void {
    for (const s of this.sources.values()) this.decodeQueued(s)
    const until = Math.floor(((now - this.startedAt - lagMs) * RATE) / 1000)
    this.mixUntil(until)
    for (const [id, s] of this.sources) if (s.pos <= this.mixed && now - s.lastVoicedAt > 10_000) this.sources.delete(id)
  }

  private decodeQueued(s: MixSource): void {
    for (let k = 0; k < s.count; k++) {
      s.decoder ??= new Decoder({ channels: 1, sample_rate: RATE })
      let bytes: Uint8Array
      try {
        bytes = s.decoder.decode(s.arena.subarray(s.starts[k]!, s.ends[k]!))
      } catch {
        continue // a corrupt packet costs that source one frame of the mix
      }
      this.framesDecoded++
      const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 1)
      const arrival = Math.floor(((s.arrivals[k]! - this.startedAt) * RATE) / 1000)
      let start = s.pos
      if (start < arrival - pcm.length - GAP) start = arrival - pcm.length
      if (start < this.mixed) start = this.mixed // too late for what is already written
      if (start + pcm.length - this.mixed > RING) continue // more than the ring holds ahead: dropped
      const ring = s.ring
      for (let i = 0; i < pcm.length; i++) ring[(start + i) & MASK] = pcm[i]!
      s.pos = start + pcm.length
    }
    s.count = 0
    s.arenaBytes = 0
  }

  /** Mix and write 20 ms ticks until `until` (16 kHz samples since the start). */
  mixUntil(until: number): void {
    const total = this.total
    const pcm = this.pcm
    while (this.mixed + TICK <= until) {
      const from = this.mixed
      let voices = 0
      total.fill(0)
      for (const s of this.sources.values()) {
        if (s.pos <= from) continue
        voices++
        const ring = s.ring
        for (let i = 0; i < TICK; i++) {
          const at = (from + i) & MASK
          total[i]! += ring[at]!
          ring[at] = 0
        }
      }
      if (voices === 0) this.append(SILENCE_PACKET)
      else {
        for (let i = 0; i < TICK; i++) {
          const v = total[i]!
          pcm[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v
        }
        let opus: Uint8Array
        try {
          opus = this.encoder.encode(pcm)
          this.framesEncoded++
        } catch {
          opus = SILENCE_PACKET
        }
        this.append(opus)
      }
      this.mixed += TICK
    }
  }

  private append(packet: Uint8Array): void {
    if (!this.stream.fits(packet.length)) {
      const page = this.stream.takePage(false)
      if (page !== null) this.page(page)
    }
    this.stream.append(packet, 0, packet.length, SAMPLES_20MS)
  }
}
