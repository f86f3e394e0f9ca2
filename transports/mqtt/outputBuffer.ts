/**
 * What one connection has to write this turn: whole packets (control plane, already encoded)
 * and audio frames with the template that frames them. `drain` turns it all into one buffer of
 * the exact size, so a flush is a single allocation and a single socket write.
 */
import type { PublishTemplate } from './publishTemplate.js'

export class OutputBuffer {
  private readonly items: Uint8Array[] = []
  /** Parallel to items: the template for an audio frame, null for an encoded packet. */
  private readonly templates: Array<PublishTemplate | null> = []
  bytes = 0

  get empty(): boolean {
    return this.items.length === 0
  }

  packet(bytes: Uint8Array): void {
    this.items.push(bytes)
    this.templates.push(null)
    this.bytes += bytes.length
  }

  audio(template: PublishTemplate, frame: Uint8Array, packetBytes: number): void {
    this.items.push(frame)
    this.templates.push(template)
    this.bytes += packetBytes
  }

  /** Everything queued, in order, as one buffer; the queue is empty afterwards. */
  drain(): Buffer {
    const out = Buffer.allocUnsafe(this.bytes)
    let pos = 0
    const items = this.items
    const templates = this.templates
    for (let i = 0; i < items.length; i++) {
      const template = templates[i]
      if (template) pos = template.write(out, pos, items[i]!)
      else {
        out.set(items[i]!, pos)
        pos += items[i]!.length
      }
    }
    items.length = 0
    templates.length = 0
    this.bytes = 0
    return out
  }
}
