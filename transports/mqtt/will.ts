/**
 * Last wills. A CONNECT may carry a will (topic inside the terminal's namespace, any payload).
 * When the connection drops without a normal DISCONNECT — network loss, keepalive timeout, a
 * protocol error, or a DISCONNECT with reason 0x04 — the will is told to the room the terminal
 * was in as a `participant.will` event, after the MQTT 5 Will Delay Interval if one was given;
 * a new connection of the same client within that delay cancels it. Closes the server makes on
 * purpose (revocation, deletion, a newer session, shutdown) publish no will.
 */
import { isUtf8 } from 'node:buffer'
import type { ClockShape, ServerEvent, TerminalHub, Timer } from '../../core/extension.js'

export interface WillMessage {
  readonly topic: string
  readonly payload: Buffer
  /** MQTT 5 Will Delay Interval in seconds (0 for MQTT 3.1.1). */
  readonly delaySeconds: number
}

export interface WillTarget {
  readonly workspaceId: string
  readonly clientId: string
  readonly room: string
}

export const willEvent = (target: WillTarget, will: WillMessage): ServerEvent => {
  const text = isUtf8(will.payload)
  return {
    type: 'participant.will',
    room: target.room,
    participantId: target.clientId,
    topic: will.topic,
    payload: will.payload.toString(text ? 'utf8' : 'base64'),
    encoding: text ? 'utf8' : 'base64',
  }
}

export class WillDelivery {
  private readonly delayed = new Map<string, Timer>()

  constructor(
    private readonly hub: TerminalHub,
    private readonly clock: ClockShape,
  ) {}

  /** Deliver now, or after the will delay (cancelled by `cancel(key)` when the client returns). */
  publish(key: string, target: WillTarget, will: WillMessage): void {
    this.cancel(key)
    const deliver = () => {
      this.delayed.delete(key)
      this.hub.broadcast(target.workspaceId, target.room, willEvent(target, will))
    }
    if (will.delaySeconds <= 0) return deliver()
    this.delayed.set(key, this.clock.setTimeout(deliver, will.delaySeconds * 1000))
  }

  /** The client connected again: its pending will is void. */
  cancel(key: string): void {
    const timer = this.delayed.get(key)
    if (timer === undefined) return
    this.clock.clearTimeout(timer)
    this.delayed.delete(key)
  }

  clear(): void {
    for (const timer of this.delayed.values()) this.clock.clearTimeout(timer)
    this.delayed.clear()
  }
}
