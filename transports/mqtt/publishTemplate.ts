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

  constructor(topic: string, mqtt5: boolean) {
    this.variableHeader = PublishTemplate.variableHeader(topic, mqtt5)
  }

  /** The variable header of a QoS 0 PUBLISH to `topic`: its length, its bytes, and (MQTT 5) no properties. */
  static variableHeader(topic: string, mqtt5: boolean): Buffer {
    const topicBytes = Buffer.from(topic, 'utf8')
    const header = Buffer.alloc(2 + topicBytes.length + (mqtt5 ? 1 : 0))
    header.writeUInt16BE(topicBytes.length, 0)
    topicBytes.copy(header, 2)
    return header
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
