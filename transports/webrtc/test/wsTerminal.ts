/**
 * The other side of the room in WebRTC tests: a terminal on the WebSocket gateway (a plain `ws`
 * client of spec/websocket.md), sending uplink frames and collecting events and downlink frames.
 */
import WebSocket from 'ws'
import type { ServerEvent } from '../../../core/events.js'
import { parseDownlink, type DownlinkFrame } from '../../../core/dataplane/frame.js'
import { Inbox, nextEvent } from '../../../core/test/helpers.js'

export class WsTerminal {
  readonly events = new Inbox<ServerEvent>()
  readonly frames = new Inbox<DownlinkFrame>()

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary) => {
      if (!isBinary) this.events.push(JSON.parse(data.toString()) as ServerEvent)
      else {
        const frame = parseDownlink(new Uint8Array(data.buffer, data.byteOffset, data.byteLength))
        if (frame) this.frames.push(frame)
      }
    })
  }

  static connect(port: number, token: string, ca: string, mode: 'forward' | 'mixed' = 'forward'): Promise<WsTerminal> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`wss://127.0.0.1:${port}/v1/connect?token=${encodeURIComponent(token)}&mode=${mode}`, { ca, perMessageDeflate: false })
      const terminal = new WsTerminal(ws)
      ws.once('open', () => resolve(terminal))
      ws.once('error', reject)
    })
  }

  event<T extends ServerEvent['type']>(type: T, predicate?: (e: Extract<ServerEvent, { type: T }>) => boolean, timeoutMs = 10_000) {
    return nextEvent(this.events, type, predicate, { timeoutMs })
  }

  /** One uplink frame: V|level byte, then the Opus packet. */
  sendAudio(frame: Uint8Array): void {
    this.ws.send(frame, { binary: true })
  }

  close(): void {
    this.ws.close()
  }
}
