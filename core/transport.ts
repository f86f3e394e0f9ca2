/**
 * The Transport contract: an adapter that accepts terminals over some protocol (WebSocket,
 * MQTT, WebRTC…), authenticates them through the host, and feeds their audio into rooms.
 */
export interface Transport {
  /** Bind listeners; resolve once they accept connections (report ports with host.listening). */
  start(): Promise<void>
  /** Close listeners and every session with a server-shutting-down reason. */
  stop(): Promise<void>
}
