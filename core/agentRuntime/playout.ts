/**
 * The agent's voice into the room: PCM (cut into 20 ms frames) or ready Opus packets are queued,
 * then sent through the room's data plane in real time — one frame per 20 ms, with the first
 * `leadMs` of a talk spurt sent at once so listeners' jitter buffers start full. Frames are
 * Opus-encoded when they are sent, so a long utterance never blocks the event loop at once.
 * A timer runs only while there is something to play (control plane; never a busy loop).
 */
import { Encoder } from '@evan/opus'
import { AGENT_FRAME_MS, AGENT_FRAME_SAMPLES, type AgentAudioOut } from '../agentProvider.js'
import { levelByteFromPcm } from '../dataplane/frame.js'

/** V|level byte of packets a provider hands over already encoded (voiced, moderate level). */
const OPUS_PASSTHROUGH_LEVEL = 0x80 | 30
/** More than this much queued audio is dropped (oldest first): a runaway provider cannot grow memory. */
export const MAX_QUEUED_MS = 120_000
/** A timer this late (an event-loop stall) restarts the spurt instead of bursting to catch up. */
const MAX_LATENESS_MS = 200

type QueuedFrame = { readonly pcm: Int16Array; readonly opus?: undefined; readonly ms: number } | {
  readonly pcm?: undefined
  readonly opus: Uint8Array
  readonly ms: number
}

export interface PlayoutStats {
  framesOut: number
  dropped: number
}

export class AgentPlayout implements AgentAudioOut {
  private readonly queue: QueuedFrame[] = []
  private queuedMs = 0
  private remainder: Int16Array | null = null
  private encoder: Encoder | null = null
  private send: ((uplink: Uint8Array) => void) | null = null
  private timer: NodeJS.Timeout | undefined
  /** Start of the current talk spurt and how much of it has been sent. */
  private spurtAt = 0
  private sentMs = 0
  private closed = false
  readonly stats: PlayoutStats = { framesOut: 0, dropped: 0 }

  constructor(
    private readonly leadMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The agent joined a room: frames go out through `send` (an uplink frame per call). */
  attach(send: (uplink: Uint8Array) => void): void {
    this.send = send
    this.kick()
  }

  detach(): void {
    this.send = null
    clearTimeout(this.timer)
    this.timer = undefined
    this.endSpurt()
  }

  close(): void {
    this.closed = true
    this.detach()
    this.queue.length = 0
    this.queuedMs = 0
    this.remainder = null
    this.encoder = null
  }

  push(pcm: Int16Array): void {
    if (this.closed || pcm.length === 0) return
    let at = 0
    if (this.remainder) {
      const need = AGENT_FRAME_SAMPLES - this.remainder.length
      if (pcm.length < need) {
        const grown = new Int16Array(this.remainder.length + pcm.length)
        grown.set(this.remainder)
        grown.set(pcm, this.remainder.length)
        this.remainder = grown
        this.kick()
        return
      }
      const frame = new Int16Array(AGENT_FRAME_SAMPLES)
      frame.set(this.remainder)
      frame.set(pcm.subarray(0, need), this.remainder.length)
      this.remainder = null
      this.enqueue({ pcm: frame, ms: AGENT_FRAME_MS })
      at = need
    }
    for (; at + AGENT_FRAME_SAMPLES <= pcm.length; at += AGENT_FRAME_SAMPLES) {
      // Copy: the caller may reuse its buffer once push returns.
      this.enqueue({ pcm: pcm.slice(at, at + AGENT_FRAME_SAMPLES), ms: AGENT_FRAME_MS })
    }
    if (at < pcm.length) this.remainder = pcm.slice(at)
    this.kick()
  }

  pushOpus(packet: Uint8Array, durationMs = AGENT_FRAME_MS): void {
    if (this.closed || packet.length === 0) return
    this.flushRemainder()
    this.enqueue({ opus: packet.slice(), ms: Math.max(AGENT_FRAME_MS / 2, durationMs) })
    this.kick()
  }

  flush(): void {
    if (this.flushRemainder()) this.kick()
  }

  clear(): void {
    this.queue.length = 0
    this.queuedMs = 0
    this.remainder = null
    clearTimeout(this.timer)
    this.timer = undefined
    this.endSpurt()
  }

  get pendingMs(): number {
    const ahead = this.sentMs > 0 ? Math.max(0, this.spurtAt + this.sentMs - this.now()) : 0
    const partial = this.remainder ? (this.remainder.length / AGENT_FRAME_SAMPLES) * AGENT_FRAME_MS : 0
    return this.queuedMs + partial + ahead
  }

  get speaking(): boolean {
    return this.pendingMs > 0
  }

  private flushRemainder(): boolean {
    if (!this.remainder) return false
    const frame = new Int16Array(AGENT_FRAME_SAMPLES)
    frame.set(this.remainder)
    this.remainder = null
    this.enqueue({ pcm: frame, ms: AGENT_FRAME_MS })
    return true
  }

  private enqueue(frame: QueuedFrame): void {
    this.queue.push(frame)
    this.queuedMs += frame.ms
    while (this.queuedMs > MAX_QUEUED_MS) {
      const dropped = this.queue.shift()!
      this.queuedMs -= dropped.ms
      this.stats.dropped++
    }
  }

  private endSpurt(): void {
    this.spurtAt = 0
    this.sentMs = 0
  }

  /** Something new to play: send what is due now rather than wait for a timer armed earlier. */
  private kick(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    this.pump()
  }

  /** Audio pacing, on real time (data plane: see core/clock.ts), not the engine's clock. */
  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.pump()
    }, Math.max(0, delayMs))
    this.timer.unref?.()
  }

  /** Send every frame that is due, then sleep until the next one is (or until listeners run dry). */
  private pump(): void {
    const send = this.send
    if (!send || this.closed || this.timer) return
    const now = this.now()
    if (this.sentMs === 0) this.spurtAt = now
    else if (now - (this.spurtAt + this.sentMs - this.leadMs) > MAX_LATENESS_MS) this.spurtAt = now - this.sentMs
    for (;;) {
      const elapsed = now - this.spurtAt
      if (this.sentMs > elapsed + this.leadMs + 1) break
      if (this.queue.length === 0) {
        // A partial frame is padded only when listeners would starve without it, so streamed
        // pushes that are not multiples of 20 ms join up without clicks.
        if (this.remainder && this.sentMs <= elapsed + 1) {
          this.flushRemainder()
          continue
        }
        if (!this.remainder && this.spurtAt + this.sentMs <= now + 1) {
          this.endSpurt()
          return
        }
        this.schedule(this.spurtAt + this.sentMs - now)
        return
      }
      const frame = this.queue.shift()!
      this.queuedMs -= frame.ms
      this.sentMs += frame.ms
      send(this.uplinkOf(frame))
      this.stats.framesOut++
    }
    this.schedule(this.spurtAt + this.sentMs - this.leadMs - now)
  }

  private uplinkOf(frame: QueuedFrame): Uint8Array {
    let opus: Uint8Array
    let level: number
    if (frame.pcm) {
      this.encoder ??= new Encoder({ channels: 1, sample_rate: 16000, application: 'voip' })
      opus = this.encoder.encode(new Uint8Array(frame.pcm.buffer, frame.pcm.byteOffset, frame.pcm.byteLength))
      level = levelByteFromPcm(frame.pcm)
    } else {
      opus = frame.opus
      level = OPUS_PASSTHROUGH_LEVEL
    }
    const uplink = new Uint8Array(opus.length + 1)
    uplink[0] = level
    uplink.set(opus, 1)
    return uplink
  }
}
