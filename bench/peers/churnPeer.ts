/**
 * Peer of churn-memory: the same connect/disconnect churn against servers that keep nothing — a
 * bare uWebSockets.js SSLApp on /v1/connect (same TLS material as Hark's gateway) that sends a
 * `session` text message on open, and a plain TCP listener that answers any CONNECT with a 3.1.1
 * CONNACK and ends the socket on DISCONNECT. What its RSS does after churn is Node's, OpenSSL's and
 * glibc's behaviour alone, so Hark's figures beside it say what Hark itself keeps.
 * Started by workers/churnServer.ts (--side peer), which measures it.
 */
import { createServer, type Socket } from 'node:net'
import uWS from 'uWebSockets.js'

const SESSION = JSON.stringify({ type: 'session', room: 'peer' })
const CONNACK = Buffer.from([0x20, 0x02, 0x00, 0x00])
const CONNECT_TYPE = 1
const DISCONNECT_TYPE = 14

/** Answer CONNECT, end on DISCONNECT, from the first byte of each packet (the churn sends whole small packets). */
const mqttConnection = (socket: Socket): void => {
  socket.on('error', () => {})
  socket.on('data', (chunk: Buffer) => {
    const type = chunk[0]! >> 4
    if (type === CONNECT_TYPE) socket.write(CONNACK)
    else if (type === DISCONNECT_TYPE) socket.end()
  })
}

export const startChurnPeer = async (opts: { gatewayPort: number; mqttPort: number; cert: string; key: string }) => {
  let listenSocket: uWS.us_listen_socket | null = null
  await new Promise<void>((resolve, reject) => {
    uWS
      .SSLApp({ cert_file_name: opts.cert, key_file_name: opts.key })
      .ws('/v1/connect', {
        compression: uWS.DISABLED,
        maxPayloadLength: 64 * 1024,
        idleTimeout: 120,
        open: (ws) => {
          ws.send(SESSION, false)
        },
      })
      .listen('127.0.0.1', opts.gatewayPort, (socket) => {
        if (!socket) reject(new Error(`churn peer: cannot listen on 127.0.0.1:${opts.gatewayPort}`))
        listenSocket = socket
        resolve()
      })
  })
  const mqtt = createServer(mqttConnection)
  await new Promise<void>((resolve, reject) => {
    mqtt.once('error', reject)
    mqtt.listen(opts.mqttPort, '127.0.0.1', () => resolve())
  })
  return {
    gateway: opts.gatewayPort,
    mqtt: opts.mqttPort,
    stop: async () => {
      if (listenSocket) uWS.us_listen_socket_close(listenSocket)
      await new Promise((resolve) => mqtt.close(resolve))
    },
  }
}
