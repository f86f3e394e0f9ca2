/**
 * Room audio held for a xiaozhi device while it listens (spec/xiaozhi.md, "Room audio while the
 * device listens"): a fixed ring of the device's shaped packets that keeps only the latest
 * HOLD_MS of audio, so what reaches the device when its turn ends is at most that late. Per
 * packet: no allocation (the ring and its stamps are allocated once per device).
 */
import { opusPacketTenths } from './opusPacket.js'

/**
 * Audio held for a listening device, at most: firmware v1.6.2 queues at most 600 ms of packets
 * for its decoder and drops the rest (`600 / OPUS_FRAME_DURATION_MS`, main/application.cc), so
 * this much can be sent at once without loss, and it is the most it arrives late.
 */
export const HOLD_MS = 600
/** Slots of the ring: 600 ms of 20 ms packets that could not be joined, and a little more. */
const SLOTS = 32

export class HeldAudio {
  private readonly packets: Array<Uint8Array | null> = new Array<Uint8Array | null>(SLOTS).fill(null)
  private readonly at = new Float64Array(SLOTS)
  private readonly tenths = new Int32Array(SLOTS)
  private head = 0
  private count = 0
  private heldTenths = 0
  /** Packets held and never sent: replaced by newer audio, too old at the turn's end, or cleared. */
  dropped = 0

  /** @param fallbackTenths the duration of a packet whose TOC says none (the device's frame). */
  constructor(private readonly fallbackTenths: number) {}

  get size(): number {
    return this.count
  }

  /** Hold one packet that arrived at `now`; the oldest go once more than HOLD_MS is held. */
  push(packet: Uint8Array, now: number): void {
    const tenths = opusPacketTenths(packet) || this.fallbackTenths
    while (this.count > 0 && (this.count === SLOTS || this.heldTenths + tenths > HOLD_MS * 10)) this.dropOldest()
    const slot = (this.head + this.count) % SLOTS
    this.packets[slot] = packet
    this.at[slot] = now
    this.tenths[slot] = tenths
    this.heldTenths += tenths
    this.count++
  }

  /**
   * Hand what arrived at most HOLD_MS before `now` to `send`, oldest first, and forget the rest;
   * returns the milliseconds of audio handed over.
   */
  release(now: number, send: (packet: Uint8Array) => void): number {
    let sentTenths = 0
    while (this.count > 0) {
      const slot = this.head
      const packet = this.packets[slot]!
      if (now - this.at[slot]! <= HOLD_MS) {
        sentTenths += this.tenths[slot]!
        send(packet)
      } else {
        this.dropped++
      }
      this.packets[slot] = null
      this.head = (this.head + 1) % SLOTS
      this.count--
    }
    this.heldTenths = 0
    return sentTenths / 10
  }

  /** Forget everything held (the talk spurt ended, the device aborted or moved). */
  clear(): void {
    while (this.count > 0) this.dropOldest()
  }

  private dropOldest(): void {
    const slot = this.head
    this.packets[slot] = null
    this.heldTenths -= this.tenths[slot]!
    this.head = (this.head + 1) % SLOTS
    this.count--
    this.dropped++
  }
}
