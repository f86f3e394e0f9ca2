/**
 * The protocol hook of the room load generator: how one terminal connects to a server under
 * test, sends a frame into its room and hands received frames back. One module per wire format
 * (bench/generators/protocols/*.ts), loaded by path inside each generator process, whose
 * default export is a RoomProtocol. The generator never looks inside the wire format; the hook
 * never looks inside the bench frame (generators/frame.ts) beyond wrapping it.
 */

export interface RoomMember {
  /** Index of this terminal in the whole run (talkers are numbered by it too). */
  readonly index: number
  readonly clientId: string
  readonly room: string
  readonly talker: boolean
  /** Client token or device password, when the server checks one. */
  readonly credential: string | null
  /** Connect to this port instead of the target's (a cluster: members of one room on different nodes). */
  readonly port?: number
}

export interface RoomTarget {
  readonly host: string
  readonly port: number
  /** Protocol-specific settings (path, TLS, topic template …), JSON-safe. */
  readonly options: Readonly<Record<string, string | number | boolean>>
}

export interface RoomConnection {
  /** Send one bench frame into the member's room (the hook adds its framing). */
  send(frame: Buffer): void
  /** Bytes queued on this connection and not yet written to the socket. */
  backlog(): number
  /** Close at once (end of run); no more frames are delivered after it. */
  close(): void
}

export interface RoomProtocol {
  readonly name: string
  /**
   * Open one terminal's connection. Resolve once it will receive its room's frames (e.g. after
   * the MQTT SUBACK); reject on any refusal. `onFrame` gets the bench frame, unwrapped.
   */
  connect(member: RoomMember, target: RoomTarget, onFrame: (frame: Buffer) => void): Promise<RoomConnection>
}
