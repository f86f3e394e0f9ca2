/**
 * A Hark node as its own process (`hark start`), for the cluster demo and the failure tests
 * (kill -9 needs a process of its own): every listener on a free port (port 0), joined to a NATS
 * server, ready once it printed its ports. Stopped by PID.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export interface NodeProcess {
  readonly nodeId: string
  readonly pid: number
  readonly ports: { readonly rest: number; readonly gateway: number; readonly mqtt: number }
  /** Resolves with the exit code (or signal) when the process ends. */
  readonly exited: Promise<string>
  /** Signal by PID: SIGTERM (graceful stop) by default, SIGKILL for a crash. */
  kill(signal?: NodeJS.Signals): Promise<string>
}

/** bin/hark.js of this repository (works from dist/ too). */
const harkBin = (): string => {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir)
  return join(dir, 'bin', 'hark.js')
}

const RUNNING = /hark: running on \S+ \(([^)]*)\)/

export interface NodeOptions {
  readonly nodeId: string
  readonly dataDir: string
  readonly natsUrl: string
  /** More `--flag value` settings (e.g. --database-url). */
  readonly flags?: ReadonlyArray<string>
  /** More environment (e.g. HARK_SECURITY_MASTER_KEY, kept off the command line). */
  readonly env?: Readonly<Record<string, string>>
  readonly leaseTtlMs?: number
  /** Where the node's stderr goes besides the readiness check (default: dropped once ready). */
  readonly log?: (chunk: string) => void
}

export const spawnNode = (o: NodeOptions): Promise<NodeProcess> =>
  new Promise((resolve, reject) => {
    const args = [
      harkBin(), 'start',
      '--data', o.dataDir,
      '--log-level', 'warn',
      '--rest-port', '0', '--gateway-port', '0', '--mqtt-port', '0', '--console-port', '0',
      '--cluster-nats-url', o.natsUrl, '--cluster-node-id', o.nodeId,
      ...(o.leaseTtlMs ? ['--cluster-lease-ttl-ms', String(o.leaseTtlMs)] : []),
      ...(o.flags ?? []),
    ]
    const child: ChildProcess = spawn(process.execPath, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...o.env },
    })
    let log = ''
    const exited = new Promise<string>((done) => child.once('exit', (code, signal) => done(signal ?? String(code))))
    const early = (why: string) => reject(new Error(`node ${o.nodeId} did not start: ${why}\n${log.slice(-3000)}`))
    child.once('error', (e) => early(e.message))
    void exited.then((how) => early(`exited (${how})`))
    child.stderr!.setEncoding('utf8')
    child.stderr!.on('data', (chunk: string) => {
      o.log?.(chunk)
      if (log.length < 65536) log += chunk
      const m = RUNNING.exec(log)
      if (!m || (child as { announced?: boolean }).announced) return
      ;(child as { announced?: boolean }).announced = true
      const ports = Object.fromEntries(m[1]!.split(' ').map((kv) => kv.split('=')).map(([k, v]) => [k, Number(v)]))
      resolve({
        nodeId: o.nodeId,
        pid: child.pid!,
        ports: { rest: ports.rest!, gateway: ports.gateway!, mqtt: ports.mqtt! },
        exited,
        kill: (signal = 'SIGTERM') => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal)
          return exited
        },
      })
    })
  })
