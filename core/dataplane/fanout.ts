/**
 * Native fan-out: a transport that can send one frame to many of its receivers with one call
 * (uWS pub/sub for WebSocket terminals) offers it here; a room router uses it for the forward-mode
 * receivers that support it instead of one `deliver` per receiver per frame (roomRouter.ts).
 * Every receiver of a room gets the same downlink frame (source id and seq are per source, not
 * per receiver), which is what makes one publish per frame possible.
 *
 * What a transport must keep (spec/terminal-protocol.md, ordering and limits):
 * - Order: a receiver's frames and events leave in the order they were produced. While a receiver
 *   is subscribed, nothing may wait in a queue of the transport's own that published frames
 *   could overtake (events are written at once; `subscribe` first writes what is queued).
 * - Backlog: the router calls `check` every `checkEveryBytes` of audio it published to a room; a
 *   receiver over its audio limit answers false, is taken off the native fan-out and gets frames
 *   one by one through `AudioSink.deliver` (drops counted there) until it tells its watcher it
 *   is ready again.
 */

/** A transport's fan-out: one per transport instance (receivers of different hubs never share a topic). */
export interface FanoutHub {
  /** Send `frame` to every receiver subscribed to `topic`. */
  publish(topic: string, frame: Uint8Array): void
  /** How much audio a room may publish between two backlog checks of its receivers. */
  readonly checkEveryBytes: number
}

/** One receiver's side of its transport's fan-out (a terminal link that supports it). */
export interface FanoutReceiver {
  readonly hub: FanoutHub
  /** False while the receiver's backlog is over its limit: it is then sent frame by frame. */
  readonly ready: boolean
  /** Receive `topic`'s frames from now on (what is queued for it is written first). */
  subscribe(topic: string): void
  /** Stop receiving `topic`'s frames (no-op when not subscribed to it). */
  unsubscribe(topic: string): void
  /** Send `frame` to every other receiver of `topic` (this receiver is its source and subscribed). */
  publish(topic: string, frame: Uint8Array): void
  /** Look at the backlog now: false when it is over the limit (`ready` is then false). */
  check(): boolean
  /** `changed` is called when `ready` flips back to true (one watcher: the router of its room). */
  watch(changed: () => void): void
  /** Forget `changed` (no-op when another watcher took its place). */
  unwatch(changed: () => void): void
}
