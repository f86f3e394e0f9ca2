/**
 * The agent's mixed input: decoded PCM of every source in the room summed into one stream of
 * 20 ms frames. Frames are emitted as soon as every active source has delivered its part of the
 * slot, so a lone speaker passes through without waiting for a timer; a source that went quiet
 * stops being waited for after `STALE_MS`. While nobody is active a 20 ms ticker emits silence —
 * first filling the gap since the last frame, so the stream keeps real time — for
 * `MIXED_SILENCE_TAIL_MS`, then stops until the next frame. Agent runtime only (control
 * plane timers); never on the router's forward path.
 */
import { AGENT_FRAME_MS, AGENT_FRAME_SAMPLES, MIXED_SILENCE_TAIL_MS } from '../agentProvider.js'

/** A source that sent nothing for this long is not waited for. */
export const STALE_MS = 60
/** At most this many 20 ms chunks wait per source (a fast clock cannot grow memory). */
const MAX_QUEUED = 10
/** At most this many silence frames fill a gap at once (after an event-loop stall). */
const MAX_FILL = 10

interface SourceQueue {
  chunks: Int16Array[]
  lastPushAt: number
}

export class MixedInput {
  private readonly sources = new Map<number, SourceQueue>()
  private ticker: NodeJS.Timeout | undefined
  private lastEmitAt = 0
  private lastAudioAt = -Infinity
  private closed = false

  constructor(
    private readonly emit: (pcm: Int16Array) => void,
    private readonly now: () => number = () => performance.now(),
    private readonly tailMs = MIXED_SILENCE_TAIL_MS,
  ) {}

  /** Decoded PCM of one source (any multiple of 20 ms; a trailing partial chunk is zero-padded). */
  push(sourceId: number, pcm: Int16Array): void {
    if (this.closed) return
    const now = this.now()
    let q = this.sources.get(sourceId)
    if (!q) this.sources.set(sourceId, (q = { chunks: [], lastPushAt: now }))
    q.lastPushAt = now
    for (let at = 0; at < pcm.length; at += AGENT_FRAME_SAMPLES) {
      let chunk = pcm.subarray(at, at + AGENT_FRAME_SAMPLES)
      if (chunk.length < AGENT_FRAME_SAMPLES) {
        const padded = new Int16Array(AGENT_FRAME_SAMPLES)
        padded.set(chunk)
        chunk = padded
      }
      q.chunks.push(chunk)
    }
    if (q.chunks.length > MAX_QUEUED) q.chunks.splice(0, q.chunks.length - MAX_QUEUED)
    this.lastAudioAt = now
    this.drain(now)
    this.ensureTicker()
  }

  /** A source left the room: stop waiting for it. */
  remove(sourceId: number): void {
    this.sources.delete(sourceId)
    this.drain(this.now())
  }

  close(): void {
    this.closed = true
    clearInterval(this.ticker)
    this.ticker = undefined
    this.sources.clear()
  }

  /** Emit every slot all active sources have filled. */
  private drain(now: number): void {
    for (;;) {
      let ready = true
      let withData = 0
      for (const q of this.sources.values()) {
        if (q.chunks.length > 0) withData++
        else if (now - q.lastPushAt < STALE_MS) ready = false
      }
      if (!ready || withData === 0) return
      this.emitSlot(now)
    }
  }

  private emitSlot(now: number): void {
    let single: Int16Array | null = null
    let mix: Int32Array | null = null
    for (const q of this.sources.values()) {
      const chunk = q.chunks.shift()
      if (!chunk) continue
      if (single === null && mix === null) {
        single = chunk
        continue
      }
      if (mix === null) {
        mix = new Int32Array(AGENT_FRAME_SAMPLES)
        for (let i = 0; i < AGENT_FRAME_SAMPLES; i++) mix[i] = single![i]!
      }
      for (let i = 0; i < AGENT_FRAME_SAMPLES; i++) mix[i]! += chunk[i]!
    }
    this.lastEmitAt = now
    if (mix === null) {
      // One speaker: its decoded chunk (a fresh buffer per decode) passes through uncopied.
      this.emit(single!)
      return
    }
    const out = new Int16Array(AGENT_FRAME_SAMPLES)
    for (let i = 0; i < AGENT_FRAME_SAMPLES; i++) out[i] = Math.max(-32768, Math.min(32767, mix[i]!))
    this.emit(out)
  }

  /** Audio pacing, on real time (data plane: see core/clock.ts), not the engine's clock. */
  private ensureTicker(): void {
    if (this.ticker || this.closed) return
    this.ticker = setInterval(() => this.tick(), AGENT_FRAME_MS)
    this.ticker.unref()
  }

  private tick(): void {
    const now = this.now()
    for (const [id, q] of this.sources) if (q.chunks.length === 0 && now - q.lastPushAt >= STALE_MS) this.sources.delete(id)
    this.drain(now)
    if (this.sources.size > 0) return
    if (now - this.lastAudioAt > this.tailMs) {
      clearInterval(this.ticker)
      this.ticker = undefined
      return
    }
    // Silence keeps the stream's timeline: the time since the last frame is filled at once (a
    // source that stopped sending is only known to be quiet once it went stale), then 20 ms per tick.
    const missing = Math.min(MAX_FILL, Math.floor((now - this.lastEmitAt + 1) / AGENT_FRAME_MS))
    if (missing <= 0) return
    this.lastEmitAt = missing === MAX_FILL ? now : this.lastEmitAt + missing * AGENT_FRAME_MS
    for (let i = 0; i < missing; i++) this.emit(new Int16Array(AGENT_FRAME_SAMPLES))
  }
}
