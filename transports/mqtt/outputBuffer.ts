/**
 * What one connection has to write this turn: whole packets (control plane, already encoded)
 * and audio frames with the template that frames them. `drain` turns it all into one buffer of
 * the exact size, so a flush is a single allocation and a single socket write.
 */
import { PublishTemplate } from './publishTemplate.js'

export class OutputBuffer {
  /**
   * One array for both kinds (one array per connection, not two): an encoded packet is one
   * entry, an audio frame two — its template, then the frame.
   */
  private readonly items: Array<Uint8Array | PublishTemplate> = []
  bytes = 0
  /** Audio is among what is queued (the connection's audio budget looks at when audio last left). */
  hasAudio = false

  get empty(): boolean {
    return this.items.length === 0
  }

  packet(bytes: Uint8Array): void {
    this.items.push(bytes)
    this.bytes += bytes.length
  }

  audio(template: PublishTemplate, frame: Uint8Array, packetBytes: number): void {
    this.items.push(template, frame)
    this.bytes += packetBytes
    this.hasAudio = true
  }

  /** Everything queued, in order, as one buffer; the queue is empty afterwards. */
  drain(): Buffer {
    const out = Buffer.allocUnsafe(this.bytes)
    let pos = 0
    const items = this.items
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!
      if (item instanceof PublishTemplate) pos = item.write(out, pos, items[++i] as Uint8Array)
      else {
        out.set(item, pos)
        pos += item.length
      }
    }
    items.length = 0
    this.bytes = 0
    this.hasAudio = false
    return out
  }
}
