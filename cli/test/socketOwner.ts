/**
 * Which process holds a socket, read from /proc: for tests of `hark start --nodes N`, where the
 * kernel or the supervisor decides which node a connection lands on. A TCP connection is found by
 * its two ports (the server's and the client's), a UDP socket by its local port.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

/** Inodes of sockets in /proc/net/<proto> with local port `local` (and remote port `remote`, when given). */
const inodesOf = (proto: 'tcp' | 'udp', local: number, remote?: number): Set<string> => {
  const found = new Set<string>()
  const port = (address: string) => parseInt(address.split(':')[1]!, 16)
  for (const line of readFileSync(`/proc/net/${proto}`, 'utf8').split('\n').slice(1)) {
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
    const f = line.trim().split(/\s+/)
    if (f.length <= 9 || port(f[1]!) !== local) continue
    if (remote !== undefined && port(f[2]!) !== remote) continue
    found.add(f[9]!)
  }
  return found
}

const holds = (pid: number, inodes: Set<string>): boolean => {
  let fds: string[]
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return false
  }
  return fds.some((fd) => {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
      return m !== null && inodes.has(m[1]!)
    } catch {
      return false
    }
  })
}

/** The PID among `pids` holding the server side of the TCP connection `serverPort` ↔ `clientPort`, or null. */
export const tcpHolder = (pids: readonly number[], serverPort: number, clientPort: number): number | null => {
  const inodes = inodesOf('tcp', serverPort, clientPort)
  return pids.find((pid) => holds(pid, inodes)) ?? null
}

/** The PID among `pids` holding a UDP socket bound to `port`, or null. */
export const udpHolder = (pids: readonly number[], port: number): number | null => {
  const inodes = inodesOf('udp', port)
  return pids.find((pid) => holds(pid, inodes)) ?? null
}

/** Whether a process with this PID exists (a zombie counts until it is reaped). */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}
