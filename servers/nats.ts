/**
 * Run a NATS server for tests, the bench, `npm run cluster:demo` and `hark start --nodes N`: Debian's `nats-server`
 * (installed by `.ci/system-deps`), on 127.0.0.1, a free port it picks itself (`-p -1`, read back
 * from its log), JetStream on with its store in a temporary dir (the lease bucket survives a
 * restart), stopped by PID. `restart` brings it back on the same port and store, as an operator's
 * restart would; `kill` is a kill -9. The server dies with the process that started it, even one
 * killed with -9 (servers/tied.ts).
 */
import type { ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { spawnTied } from './tied.js'

export interface NatsServer {
  /** nats://127.0.0.1:port */
  readonly url: string
  readonly port: number
  /** PID of the running server (changes on restart). */
  readonly pid: number
  /** Its JetStream store (a temp dir that `stop` removes). */
  readonly dataDir: string
  stop(): Promise<void>
  /** Stop (SIGTERM) and start again on the same port and store. */
  restart(): Promise<void>
}

export const INSTALL_HINT = 'sudo apt-get install -y --no-install-recommends nats-server'

/** The nats-server binary: HARK_NATS_SERVER, else Debian's. Throws with the install command when absent. */
export const natsServerBinary = (): string => {
  const candidates = [process.env.HARK_NATS_SERVER, '/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server']
  for (const c of candidates) if (c && existsSync(c)) return c
  throw new Error(`nats-server is not installed; install it with: ${INSTALL_HINT} (or set HARK_NATS_SERVER)`)
}

const READY = /Server is ready/
const LISTENING = /Listening for client connections on [^\s]*:(\d+)/

/** Start nats-server; resolves once it accepts clients. */
const launch = (binary: string, port: number, store: string, name: string): Promise<{ child: ChildProcess; port: number }> =>
  new Promise((resolve, reject) => {
    const child = spawnTied(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store, '-n', name], {
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let log = ''
    let bound = 0
    const fail = (why: string) => {
      child.kill('SIGKILL')
      reject(new Error(`nats-server did not start: ${why}\n${log.slice(-2000)}`))
    }
    child.once('error', (e) => fail(e.message))
    child.once('exit', (code, signal) => fail(`exited (${code ?? signal})`))
    child.stderr!.setEncoding('utf8')
    const onLog = (chunk: string) => {
      log += chunk
      bound ||= Number(LISTENING.exec(log)?.[1] ?? 0)
      if (bound > 0 && READY.test(log)) {
        child.removeAllListeners('exit')
        child.removeAllListeners('error')
        child.stderr!.off('data', onLog)
        child.stderr!.resume()
        resolve({ child, port: bound })
      }
    }
    child.stderr!.on('data', onLog)
  })

const stopChild = (child: ChildProcess, signal: NodeJS.Signals): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill(signal)
  })

/** `name`: the server's name in its logs and monitoring (default: `hark-test-<pid>`). */
export const startNats = async ({ name = `hark-test-${process.pid}` }: { name?: string } = {}): Promise<NatsServer> => {
  const binary = natsServerBinary()
  const store = mkdtempSync(join(tmpdir(), 'hark-nats-'))
  let { child, port } = await launch(binary, -1, store, name)
  let stopped = false
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    get pid() {
      return child.pid!
    },
    dataDir: store,
    async restart() {
      await stopChild(child, 'SIGTERM')
      ;({ child } = await launch(binary, port, store, name))
    },
    async stop() {
      if (stopped) return
      stopped = true
      await stopChild(child, 'SIGTERM')
      rmSync(store, { recursive: true, force: true })
    },
  }
}
