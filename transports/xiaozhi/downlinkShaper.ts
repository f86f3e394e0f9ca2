/**
 * The downlink to one xiaozhi device: Opus packets of exactly the frame duration its server hello
 * announced. Room audio arrives as 20 ms packets (agents, mixes, most terminals) or 60 ms ones
 * (other devices); a packet of the announced duration passes untouched, shorter ones of one
 * configuration are joined into one packet (opusPacket.ts) as they arrive — no decoding. What
 * cannot be joined (a configuration change, a duration that does not divide the target) is sent
 * as it is: firmware from v2.0.0 plays any length, older firmware pads it with silence.
 */
import { joinOpusFrames, parseOpusPacket } from './opusPacket.js'

export class DownlinkShaper {
  private readonly targetTenths: number
  private config = -1
  private frames: Uint8Array[] = []
  private pendingTenths = 0

  constructor(targetMs: number) {
    this.targetTenths = targetMs * 10
  }

  /** Milliseconds waiting to be joined. */
  get pendingMs(): number {
    return this.pendingTenths / 10
  }

  /** One packet of room audio in; the packets to send now appended to `out`. */
  push(packet: Uint8Array, out: Uint8Array[]): void {
    const info = parseOpusPacket(packet)
    if (info === null) {
      // Not Opus as we know it: the device's decoder will say so; keep the order.
      this.flush(out)
      out.push(packet)
      return
    }
    const tenths = info.frameTenths * info.frames.length
    if (this.pendingTenths === 0 && tenths === this.targetTenths) {
      out.push(packet)
      return
    }
    if (this.targetTenths % info.frameTenths !== 0) {
      this.flush(out)
      out.push(packet)
      return
    }
    if (this.pendingTenths > 0 && info.config !== this.config) this.flush(out)
    this.config = info.config
    for (const frame of info.frames) {
      if (this.pendingTenths + info.frameTenths > this.targetTenths) this.flush(out)
      this.frames.push(frame)
      this.pendingTenths += info.frameTenths
      if (this.pendingTenths === this.targetTenths) this.emit(out)
    }
  }

  /** Send what is waiting (end of a talk spurt): a shorter packet. */
  flush(out: Uint8Array[]): void {
    if (this.pendingTenths > 0) this.emit(out)
  }

  /** Forget what is waiting (the device aborted playback). */
  reset(): void {
    this.frames = []
    this.pendingTenths = 0
  }

  private emit(out: Uint8Array[]): void {
    out.push(joinOpusFrames(this.config, this.frames))
    this.frames = []
    this.pendingTenths = 0
  }
}
