/**
 * In a node of `hark start --nodes N` (a Node `cluster` worker), every UDP socket is its own.
 * Node's cluster shares a worker's dgram socket with the other workers through the primary unless
 * it is bound `exclusive` (node:dgram, socket.bind): two nodes binding port 0 would then get one
 * socket, and each would read the other's WebRTC packets. werift binds without the option, so
 * the node makes it the default for its process.
 */
import dgram from 'node:dgram'

type Bind = (...args: unknown[]) => dgram.Socket

export const exclusiveUdpSockets = (): void => {
  const bind = dgram.Socket.prototype.bind as Bind
  const exclusive: Bind = function (this: dgram.Socket, ...args: unknown[]) {
    const [first, second] = args
    const callback = args.find((a) => typeof a === 'function')
    // bind(options[, callback]) or bind([port][, address][, callback])
    const options =
      first !== null && typeof first === 'object'
        ? { ...(first as dgram.BindOptions), exclusive: true }
        : { port: typeof first === 'number' ? first : undefined, address: typeof second === 'string' ? second : undefined, exclusive: true }
    return bind.call(this, options, ...(callback ? [callback] : []))
  }
  dgram.Socket.prototype.bind = exclusive as typeof dgram.Socket.prototype.bind
}
