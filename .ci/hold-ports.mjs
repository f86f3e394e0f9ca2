#!/usr/bin/env node
// Holds TCP ports on 127.0.0.1 so that the test suite runs while "another process" owns them:
// a test that binds a fixed port instead of port 0 fails with EADDRINUSE. Usage:
//   node .ci/hold-ports.mjs 8080 8443 2883 8090
// Prints one line ("holding 8080 8443 …") once every port is held, then waits. It stops on
// SIGTERM or SIGINT, or when its stdin closes (the script that started it is gone).
import { createServer } from 'node:net'

const ports = process.argv.slice(2).map(Number)
if (ports.length === 0 || ports.some((p) => !Number.isInteger(p) || p < 1 || p > 65535)) {
  process.stderr.write('usage: node .ci/hold-ports.mjs PORT...\n')
  process.exit(2)
}

const hold = (port) =>
  new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy())
    server.once('error', (e) =>
      // Someone else holds it already: the port is just as unavailable to the tests.
      e.code === 'EADDRINUSE' ? resolve({ port, server: null }) : reject(e),
    )
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve({ port, server }))
  })

const held = await Promise.all(ports.map(hold))
const stop = () => {
  for (const h of held) h.server?.close()
  process.exit(0)
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
process.stdin.on('end', stop).on('error', stop).resume()

const mine = held.filter((h) => h.server).map((h) => h.port)
const others = held.filter((h) => !h.server).map((h) => h.port)
process.stdout.write(`holding ${mine.join(' ')}${others.length ? ` (already held elsewhere: ${others.join(' ')})` : ''}\n`)
