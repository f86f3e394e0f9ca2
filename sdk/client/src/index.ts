/**
 * @hark/client: a terminal of a Hark room from a browser or Node — connect with a client token
 * over WebRTC or WebSocket, typed events, audio, reconnection. README.md has the quick start.
 */
export { connect, type ConnectOptions } from './connect.js'
export { Session, type OpusCodec, type ReconnectingInfo, type SessionEvents, type SessionState, type UnknownEvent } from './session.js'
export { listAudioDevices, type BrowserAudioOptions } from './browser/audio.js'
export type { ReconnectOptions } from './reconnect.js'
export type { SocketEvents, SocketLike, WebSocketFactory } from './links/websocket.js'
export * from './errors.js'
export * from './protocol.js'
