/**
 * `hark start --nodes N` (N > 1): this process supervises N engine processes on one machine,
 * joined as a cluster (spec/cluster.md, "One machine, every core"). It prepares the data dir once
 * (migrations, master key, self-signed certificate: N processes would race to make them), starts
 * a NATS server of its own unless `cluster.natsUrl` names one, gives every listener a port, and
 * forks the nodes as Node `cluster` workers: their `node:net` listeners (REST, MQTT, console,
 * xiaozhi plain) are shared through this process, which accepts and hands each connection to a
 * node in turn; the gateway (uWebSockets.js, WSS and WebRTC signalling) binds the same port in
 * every node with SO_REUSEPORT, and the kernel spreads its connections. A node that dies is
 * forked again with the same node id; SIGTERM/SIGINT stop them all, then NATS.
 */
import cluster, { type Worker } from 'node:cluster'
import { mkdirSync } from 'node:fs'
import { createServer } from 'node:net'
import { join, resolve } from 'node:path'
import type { Settings } from '../../core/config.js'
import { settingNames } from '../../core/config.js'
import { masterKeyFileOf, openDataDirChecked, remoteOf } from '../../core/dataDir.js'
import { nodeIdOf } from '../../core/cluster/nodeId.js'
import { loadMasterKey } from '../../core/security/masterKey.js'
import { loadTls } from '../../core/tls.js'
import { startNats, type NatsServer } from '../../servers/nats.js'
import { CliError } from '../context.js'
import { isFromNode, type NodeMetrics, type NodeReady, type ToNode } from './messages.js'

/** The listeners the nodes share, by the setting holding each one's port (null: that listener is off). */
export const SHARED_LISTENERS = ['rest.port', 'gateway.port', 'mqtt.port', 'mqtt.tlsPort', 'console.port', 'xiaozhi.plainPort'] as const

/** A node that dies this soon after its start is forked again only after this pause, so a crash loop does not spin. */
const RESTART_PAUSE_MS = 1000
const QUICK_DEATH_MS = 5000

const say = (line: string) => process.stderr.write(`hark: ${line}\n`)

const valueAt = (settings: Settings, path: string): unknown =>
  path.split('.').reduce<unknown>((o, k) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), settings)

/** A port the kernel says is free on `host` now (it is bound again at once by the nodes). */
const freePort = (host: string): Promise<number> =>
  new Promise((done, fail) => {
    const probe = createServer()
    probe.once('error', fail)
    probe.listen(0, host, () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => done(port))
    })
  })

/**
 * Every shared listener's port, as a `--flag value` pair: a port 0 is chosen here, once, because
 * the nodes must all bind the same one (uWebSockets.js sets SO_REUSEPORT only on a port it is given).
 */
const listenerPorts = async (settings: Settings): Promise<string[]> => {
  const flags: string[] = []
  for (const path of SHARED_LISTENERS) {
    const port = valueAt(settings, path)
    if (typeof port !== 'number') continue
    flags.push(`--${settingNames(path).flag}`, String(port === 0 ? await freePort(settings.host) : port))
  }
  return flags
}

/** `argv` without `--nodes N` / `--nodes=N`. */
export const withoutNodesFlag = (argv: readonly string[]): string[] => {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--nodes') i++
    else if (!argv[i]!.startsWith('--nodes=')) out.push(argv[i]!)
  }
  return out
}

/**
 * Make once what each node would otherwise make at its start: the database's schema, the master
 * key, the self-signed certificate. With `storage.url` each node keeps its own replica, so each
 * gets a data dir of its own under this one, and the files they share are named for it.
 */
const prepareDataDir = async (settings: Settings): Promise<(nodeId: string) => string[]> => {
  const remote = remoteOf(settings)
  mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 })
  if (!remote && settings.security.masterKey === null) {
    const file = masterKeyFileOf(settings)
    const { generated } = loadMasterKey({ value: null, file, generate: true })
    if (generated) say(`generated a new master key in ${file}; back it up with the data dir`)
  }
  ;(await openDataDirChecked(settings)).close()
  const tls = await loadTls({ certFile: settings.tls.certFile, keyFile: settings.tls.keyFile, dataDir: settings.dataDir, host: settings.host })
  if (!remote) return () => []
  const shared = [
    ...(settings.security.masterKey === null ? ['--security-master-key-file', resolve(masterKeyFileOf(settings))] : []),
    '--tls-cert-file', resolve(tls.certFile), '--tls-key-file', resolve(tls.keyFile),
    '--recordings-dir', resolve(settings.recordings.dir ?? join(settings.dataDir, 'recordings')),
  ]
  return (nodeId) => {
    const own = join(settings.dataDir, 'nodes', nodeId)
    mkdirSync(own, { recursive: true, mode: 0o700 })
    return ['--data', own, ...shared]
  }
}

/** How long a scrape waits for each node's metrics; one that has not answered by then is left out. */
const COLLECT_WAIT_MS = 2000

const send = (worker: Worker, m: ToNode) => {
  if (worker.isConnected()) worker.send(m)
}

/** Answers to collects in flight, by collect id. */
const collected = new Map<number, (metrics: NodeMetrics) => void>()
let lastCollect = 0

/** Every running node's metrics (those that answer within COLLECT_WAIT_MS). */
const scrape = async (slots: ReadonlyArray<Slot>): Promise<NodeMetrics[]> => {
  const running = slots.flatMap((s) => (s.worker && s.ready ? [s.worker] : []))
  const answers = await Promise.all(
    running.map((worker) => {
      const id = ++lastCollect
      return new Promise<NodeMetrics | null>((resolve) => {
        const timer = setTimeout(() => resolve(null), COLLECT_WAIT_MS)
        collected.set(id, (metrics) => {
          clearTimeout(timer)
          resolve(metrics)
        })
        send(worker, { kind: 'collect', id })
      }).finally(() => collected.delete(id))
    }),
  )
  return answers.filter((a): a is NodeMetrics => a !== null)
}

interface Slot {
  /** 1 … N */
  readonly index: number
  readonly nodeId: string
  worker: Worker | null
  startedAt: number
  ready: NodeReady | null
}

export interface SupervisorOptions {
  readonly count: number
  readonly settings: Settings
  /** The command line after `hark` (`start …`), passed on to each node without `--nodes`. */
  readonly argv: readonly string[]
  /** How long the nodes may take to stop on SIGTERM before they are killed. */
  readonly stopBudgetMs: number
}

export const superviseNodes = async ({ count, settings, argv, stopBudgetMs }: SupervisorOptions): Promise<void> => {
  const nodeArgs = await prepareDataDir(settings)
  const ports = await listenerPorts(settings)
  let nats: NatsServer | null = null
  let natsUrl = settings.cluster.natsUrl
  if (natsUrl === null) {
    try {
      nats = await startNats({ name: `hark-${process.pid}` })
    } catch (e) {
      throw new CliError(`--nodes ${count} needs a NATS server: ${(e as Error).message}`)
    }
    natsUrl = nats.url
  }
  const base = nodeIdOf(settings.cluster.nodeId, settings.dataDir)
  const common = [...withoutNodesFlag(argv), ...ports, '--cluster-nats-url', natsUrl]
  const slots: Slot[] = Array.from({ length: count }, (_, i) => ({ index: i + 1, nodeId: `${base}-${i + 1}`, worker: null, startedAt: 0, ready: null }))
  let stopping = false
  let allReady: (() => void) | null = null
  let startFailed: ((e: Error) => void) | null = null

  const fork = (slot: Slot) => {
    cluster.setupPrimary({ exec: process.argv[1], args: [...common, '--cluster-node-id', slot.nodeId, ...nodeArgs(slot.nodeId)] })
    const worker = cluster.fork({ HARK_NODE_SLOT: String(slot.index) })
    slot.worker = worker
    slot.startedAt = performance.now()
    slot.ready = null
    worker.on('message', (m: unknown) => {
      if (!isFromNode(m)) return
      if (m.kind === 'scrape') return void scrape(slots).then((nodes) => send(worker, { kind: 'scraped', id: m.id, nodes }))
      if (m.kind === 'collected') return collected.get(m.id)?.(m.metrics)
      slot.ready = m
      if (allReady && slots.every((s) => s.ready)) allReady()
      else if (!allReady) say(`node ${slot.nodeId} running again (pid ${m.pid})`)
    })
    worker.on('exit', (code, signal) => {
      if (slot.worker !== worker) return
      slot.worker = null
      if (stopping) return
      const how = signal ?? `exit code ${code}`
      if (startFailed) return startFailed(new CliError(`node ${slot.nodeId} exited (${how}) while starting`))
      const quick = performance.now() - slot.startedAt < QUICK_DEATH_MS
      say(`node ${slot.nodeId} (pid ${worker.process.pid}) exited (${how}); starting it again${quick ? ` in ${RESTART_PAUSE_MS} ms` : ''}`)
      if (quick) setTimeout(() => !stopping && fork(slot), RESTART_PAUSE_MS)
      else fork(slot)
    })
  }

  const stopAll = async (): Promise<boolean> => {
    stopping = true
    const exits = slots.map(
      (slot) =>
        new Promise<boolean>((done) => {
          const w = slot.worker
          if (!w || w.isDead()) return done(true)
          // A node still starting has no handler for SIGTERM yet: it dies of it, and nothing was running.
          w.once('exit', (code, signal) => done(code === 0 || (slot.ready === null && signal === 'SIGTERM')))
          w.process.kill('SIGTERM')
        }),
    )
    const late = setTimeout(() => {
      for (const slot of slots) if (slot.worker && !slot.worker.isDead()) slot.worker.process.kill('SIGKILL')
    }, stopBudgetMs)
    const clean = (await Promise.all(exits)).every(Boolean)
    clearTimeout(late)
    await nats?.stop()
    return clean
  }

  // From the first fork on: a signal while the nodes start stops those that started.
  let shutdown: Promise<void> | null = null
  const onSignal = (signal: string) => {
    shutdown ??= (async () => {
      say(`${signal}: stopping ${count} nodes`)
      const began = performance.now()
      const clean = await stopAll()
      say(clean ? `stopped in ${Math.round(performance.now() - began)} ms` : 'a node did not stop cleanly')
      process.exit(clean ? 0 : 1)
    })()
  }
  process.on('SIGINT', () => onSignal('SIGINT'))
  process.on('SIGTERM', () => onSignal('SIGTERM'))

  try {
    await new Promise<void>((done, fail) => {
      allReady = done
      startFailed = fail
      for (const slot of slots) fork(slot)
    })
  } catch (e) {
    await stopAll()
    throw e
  }
  allReady = null
  startFailed = null

  const first = slots[0]!.ready!
  const shown = Object.entries(first.ports).map(([k, v]) => `${k}=${v}`).join(' ')
  const database = settings.storage.url ? `; database at ${settings.storage.url}` : ''
  say(`running on ${settings.host} (${shown}); data in ${settings.dataDir}${database}`)
  const server = nats ? ` (nats-server pid ${nats.pid}, started by hark)` : ''
  say(`${count} nodes in a cluster over NATS at ${natsUrl}${server}: ${slots.map((s) => `${s.nodeId} (pid ${s.ready!.pid})`).join(', ')}`)
}
