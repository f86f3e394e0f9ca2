/**
 * The downlink audio PUBLISH of one receiver, precomputed: every frame to a receiver goes to the
 * same topic at QoS 0, so all of the packet except the remaining length and the payload is fixed
 * at CONNECT. Writing a frame copies the template and the shared payload into the output buffer;
 * the payload is never re-encoded and nothing is allocated per frame.
 */

import { varintSize, writeVarint } from './varint.js'

/** First byte of a PUBLISH at QoS 0 without DUP or RETAIN. */
export const PUBLISH_QOS0 = 0x30

export class PublishTemplate {
  /** Topic length, topic and (MQTT 5) an empty property list: the variable header of every frame. */
  private readonly variableHeader: Buffer

  /** `header`: the variable header of `topic`'s frames, as `variableHeaders` makes it. */
  constructor(topic: string | Buffer, mqtt5: boolean) {
    this.variableHeader = typeof topic === 'string' ? PublishTemplate.variableHeaders([topic], mqtt5)[0]! : topic
  }

  /**
   * The variable headers of QoS 0 PUBLISHes to `topics` — each its topic's length, its bytes, and
   * (MQTT 5) no properties — as views of one allocation: a connection keeps its downlink and
   * uplink audio headers for its whole life, and one ArrayBuffer between them costs a third of
   * two (Buffer's shared pool would be worse: a long-lived view pins its whole 8 KB slab).
   */
  static variableHeaders(topics: readonly string[], mqtt5: boolean): Buffer[] {
    const sizes = topics.map((t) => 2 + Buffer.byteLength(t, 'utf8') + (mqtt5 ? 1 : 0))
    const all = Buffer.alloc(sizes.reduce((a, b) => a + b, 0))
    let pos = 0
    return topics.map((topic, i) => {
      const header = all.subarray(pos, pos + sizes[i]!)
      pos += sizes[i]!
      header.writeUInt16BE(header.length - 2 - (mqtt5 ? 1 : 0), 0)
      header.write(topic, 2, 'utf8')
      return header
    })
  }

  /** Size of the whole packet for a payload of `payloadBytes`. */
  size(payloadBytes: number): number {
    const remaining = this.variableHeader.length + payloadBytes
    return 1 + varintSize(remaining) + remaining
  }

  /** Write the packet for `payload` at `pos`; returns the position after it. */
  write(dst: Buffer, pos: number, payload: Uint8Array): number {
    dst[pos++] = PUBLISH_QOS0
    pos = writeVarint(dst, pos, this.variableHeader.length + payload.length)
    pos += this.variableHeader.copy(dst, pos)
    dst.set(payload, pos)
    return pos + payload.length
  }
}
