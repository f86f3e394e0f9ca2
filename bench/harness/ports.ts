/** Free TCP ports on 127.0.0.1, chosen per run by binding port 0 and releasing it. */
import { createServer } from 'node:net'

const onePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no port from the kernel'))))
    })
  })

/** `count` distinct free ports (all held at once while choosing, so they differ). */
export const freePorts = async (count: number): Promise<number[]> => {
  const servers = await Promise.all(
    Array.from({ length: count }, () =>
      new Promise<import('node:net').Server>((resolve, reject) => {
        const s = createServer()
        s.unref()
        s.once('error', reject)
        s.listen(0, '127.0.0.1', () => resolve(s))
      }),
    ),
  )
  const ports = servers.map((s) => {
    const a = s.address()
    return typeof a === 'object' && a ? a.port : 0
  })
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))))
  if (ports.some((p) => p === 0)) throw new Error('no port from the kernel')
  return ports
}

export const freePort = onePort
