/**
 * A connection's socket: the listeners every connection shares (no closures per socket: each finds
 * its connection on the socket), and writes straight to the descriptor of a plain TCP socket.
 */
import { writeSync } from 'node:fs'
import type { Socket } from 'node:net'
import { TLSSocket } from 'node:tls'

/** What the shared listeners hand the socket's data and close to. */
export interface SocketOwner {
  received(chunk: Buffer): void
  closed(): void
}

/** The socket's own connection, for the shared listeners. */
const OWNER = Symbol('mqttConnection')
type OwnedSocket = Socket & { [OWNER]: SocketOwner }

/** From now on `owner` hears what arrives on `socket`, and its close. */
export const attachSocket = (socket: Socket, owner: SocketOwner): void => {
  ;(socket as OwnedSocket)[OWNER] = owner
  socket.on('data', onData)
  socket.on('error', ignore) // 'close' follows and does the work
  socket.on('close', onClose)
}

const ignore = (): void => {}
function onData(this: Socket, chunk: Buffer): void {
  ;(this as OwnedSocket)[OWNER].received(chunk)
}
function onClose(this: Socket): void {
  ;(this as OwnedSocket)[OWNER].closed()
}

/**
 * The descriptor to write to directly, or -1: only a plain TCP socket (TLS must go through its
 * stream) whose handle exposes its descriptor (libuv on POSIX; Windows has none).
 */
export const directFd = (socket: Socket): number => {
  if (socket instanceof TLSSocket) return -1
  // `_handle` is Node's TCP wrap (not typed): its `fd` getter is the libuv descriptor.
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd
  return typeof fd === 'number' && fd >= 0 ? fd : -1
}

/**
 * Write `data` to `socket`. With a descriptor (`directFd`) and nothing waiting in the socket's
 * stream, straight to the descriptor (one `write(2)`, none of the stream's per-write objects and
 * callbacks); what the kernel does not take at once — a full socket buffer (EAGAIN), a partial
 * write, a broken connection — goes to the stream, which keeps the order from then on
 * (`writableLength` > 0 sends every later write through it too), counts toward the backlog, and
 * reports the error and the close as before. True when the kernel took all of it directly.
 */
export const writeToSocket = (socket: Socket, fd: number, data: Buffer): boolean => {
  if (fd >= 0 && socket.writableLength === 0) {
    let written = 0
    try {
      written = writeSync(fd, data)
    } catch {
      // EAGAIN, EPIPE, ECONNRESET: the stream retries, or fails the socket and closes it.
    }
    if (written === data.length) return true
    socket.write(written === 0 ? data : data.subarray(written))
  } else socket.write(data)
  return false
}
