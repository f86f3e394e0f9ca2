/**
 * What a Hark cluster costs per node as it grows, and what it asks of the libSQL primary (issue 40,
 * the capacity model in spec/cluster.md). Outside the runner, like relayCost.js and replicaCost.js:
 *
 * 1. **Membership overhead.** For each N of `--nodes` (default 2,4,8,16): a NATS server (Debian's
 *    nats-server, with its monitoring port, `-m`), a libSQL server (sqld, servers/sqld.ts, with its
 *    admin API for statement counts), and N `hark start` processes joined over both
 *    (cluster/spawnNode.ts). Each node gets `--terminals` WSS terminals (default 10): half of them
 *    in rooms that span every node (room `span-j` holds terminal j of each node), half in rooms of
 *    2 of their own node. Nobody talks. Over an idle window of `--window` seconds (default 10) it
 *    reads each node's CPU (utime + stime from /proc/<pid>/stat), NATS's and sqld's, NATS's
 *    messages and bytes in and out (/varz), and sqld's statement counters (`query_count`,
 *    `rows_written_count`, `rows_read_count` from /v1/namespaces/default/stats).
 * 2. **The primary's writes per connect, disconnect and checkpoint** (with the smallest N): then
 *    `--connects` more terminals (default 300, 64 at a time) connect to node 1 and later close;
 *    sqld's counters and CPU across each phase, less the idle rate, give statements and rows per
 *    connect and per disconnect, and sqld CPU µs per connect. Usage checkpoints: the idle window's
 *    statements ÷ (nodes × window ÷ usage.checkpointMs).
 * 3. **The primary's ceiling** (on unless `--no-primary`): the usage writes a connect storm makes
 *    (group commit: one transaction of k `usage_sessions` inserts), driven serially from an
 *    embedded replica as a node drives them, for k = 1, 8, 64: wall ms per transaction (the primary
 *    runs one write transaction at a time, so 1 ÷ that is its ceiling in transactions per second)
 *    and sqld CPU µs per transaction and per row. Then a usage checkpoint and an orphan recovery
 *    (the two writes of every node's checkpoint tick) over 1k, 10k and 50k open sessions: write-lock
 *    time and sqld CPU per open session.
 * 4. **CPU per connect, file against sqld** (`--connect-cpu N`, default 300; 0 skips): connectCost.js's
 *    measure (the engine in this process, real `ws` clients in a child) with the engine's database
 *    on its file, then on sqld, with sqld's CPU and statements per connect and per disconnect.
 *
 * Prints one JSON line per phase and a summary line. The machine's load average is in every line:
 * on a shared machine, prefer the figures per CPU-second and the counts (statements, messages),
 * which other load does not change.
 * Usage: node dist/bench/clusterOverhead.js [--nodes 2,4,8,16|none] [--terminals 10] [--window 10]
 *        [--connects 300] [--connect-cpu 300] [--no-primary]
 */
import { randomBytes } from 'node:crypto'
import { fork, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import WebSocket from 'ws'
import { resolveSettings } from '../core/config.js'
import { createEngine } from '../core/index.js'
import { openDataDir } from '../core/dataDir.js'
import { openStorage } from '../core/storage/storage.js'
import { spawnNode, type NodeProcess } from '../cluster/spawnNode.js'
import { natsServerBinary } from '../servers/nats.js'
import { listeningPorts, startSqld, type Sqld } from '../servers/sqld.js'
import { spawnTied } from '../servers/tied.js'
import { freePorts } from './harness/ports.js'
import type { ClientsRequest } from './workers/connectCostClients.js'
import { websocketTransport } from '../transports/websocket/index.js'
import { readCpuSeconds, readMemory } from './harness/proc.js'

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback
}
const nodeCounts = arg('nodes', '2,4,8,16').split(',').map(Number).filter((x) => x > 0)
const terminalsPerNode = Number(arg('terminals', '10'))
const windowS = Number(arg('window', '10'))
const extraConnects = Number(arg('connects', '300'))
const primaryPhase = !process.argv.includes('--no-primary')
const connectCpuN = Number(arg('connect-cpu', '300'))
const CHECKPOINT_MS = 5000
const LANES = 64

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms))
const load = () => +loadavg()[0]!.toFixed(2)
const out = (line: Record<string, unknown>) => process.stdout.write(JSON.stringify({ loadAverage: load(), ...line }) + '\n')
const say = (text: string) => process.stderr.write(`clusterOverhead: ${text}\n`)

// ---- the servers -----------------------------------------------------------------------------

interface Nats {
  readonly url: string
  readonly pid: number
  varz(): Promise<Varz>
  stop(): Promise<void>
}
interface Varz {
  readonly in_msgs: number
  readonly out_msgs: number
  readonly in_bytes: number
  readonly out_bytes: number
}

/** nats-server with JetStream and its monitoring port (servers/nats.ts has no `-m`; the bench's own). */
const startNats = async (root: string): Promise<Nats> => {
  const [port, monitor] = (await freePorts(2)) as [number, number]
  const store = join(root, 'nats')
  mkdirSync(store, { recursive: true })
  const child: ChildProcess = spawnTied(
    natsServerBinary(),
    ['-a', '127.0.0.1', '-p', String(port), '-m', String(monitor), '-js', '-sd', store],
    { stdio: 'ignore' },
  )
  const varz = async (): Promise<Varz> => (await (await fetch(`http://127.0.0.1:${monitor}/varz`)).json()) as Varz
  for (let i = 0; i < 200; i++) {
    try {
      await varz()
      break
    } catch {
      if (i === 199) throw new Error('nats-server did not answer /varz within 10 s')
      await delay(50)
    }
  }
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  return {
    url: `nats://127.0.0.1:${port}`,
    pid: child.pid!,
    varz,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

interface SqldStats {
  readonly query_count: number
  readonly rows_written_count: number
  readonly write_requests_delegated: number
  readonly rows_read_count: number
}

/**
 * sqld with its admin API on a free port (SQLD_ADMIN_LISTEN_ADDR, read by sqld from the environment).
 * servers/sqld.ts reads sqld's port back from /proc and knows of one listener; with the admin API
 * there are two, so the client URL is made here from the listener that is not the admin one.
 */
const startSqldWithStats = async (): Promise<{ sqld: Sqld; url: string; stats(): Promise<SqldStats> }> => {
  const [admin] = (await freePorts(1)) as [number]
  const before = process.env.SQLD_ADMIN_LISTEN_ADDR
  process.env.SQLD_ADMIN_LISTEN_ADDR = `127.0.0.1:${admin}`
  let sqld: Sqld
  try {
    sqld = await startSqld()
  } finally {
    if (before === undefined) delete process.env.SQLD_ADMIN_LISTEN_ADDR
    else process.env.SQLD_ADMIN_LISTEN_ADDR = before
  }
  let port = 0
  for (let i = 0; i < 100 && port === 0; i++) {
    port = listeningPorts(sqld.pid).find((p) => p !== admin) ?? 0
    if (port === 0) await delay(50)
  }
  if (port === 0) {
    await sqld.stop()
    throw new Error('sqld: no client listener besides the admin one')
  }
  return {
    sqld,
    url: `http://127.0.0.1:${port}`,
    stats: async () => (await (await fetch(`http://127.0.0.1:${admin}/v1/namespaces/default/stats`)).json()) as SqldStats,
  }
}

const statsDelta = (a: SqldStats, b: SqldStats) => ({
  statements: b.query_count - a.query_count,
  rowsWritten: b.rows_written_count - a.rows_written_count,
  writeRequests: b.write_requests_delegated - a.write_requests_delegated,
  rowsRead: b.rows_read_count - a.rows_read_count,
})

// ---- terminals -------------------------------------------------------------------------------

const connectOne = (port: number, token: string) =>
  new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(`wss://127.0.0.1:${port}/v1/connect?token=${token}`, { rejectUnauthorized: false, perMessageDeflate: false })
    const timer = setTimeout(() => reject(new Error('no session within 30 s')), 30_000)
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary && (JSON.parse(data.toString()) as { type: string }).type === 'session') {
        clearTimeout(timer)
        resolve(ws)
      }
    })
    ws.on('error', (e) => {
      clearTimeout(timer)
      reject(e)
    })
    ws.on('close', (code: number, reason: Buffer) => {
      clearTimeout(timer)
      reject(new Error(`closed before session: ${code} ${reason.toString()}`))
    })
  })

/** Open every (port, token), LANES at a time. */
const connectAll = async (targets: ReadonlyArray<{ port: number; token: string }>): Promise<WebSocket[]> => {
  const open: WebSocket[] = []
  let next = 0
  const lane = async () => {
    while (next < targets.length) {
      const t = targets[next++]!
      // One more try after a failure (a loaded machine, a node still joining), then the error stands.
      open.push(await connectOne(t.port, t.token).catch((e: Error) => {
        say(`a terminal failed to connect (${e.message}); trying once more`)
        return connectOne(t.port, t.token)
      }))
    }
  }
  await Promise.all(Array.from({ length: Math.min(LANES, targets.length) }, lane))
  return open
}

const closeAll = (open: ReadonlyArray<WebSocket>) =>
  Promise.all(
    open.map(
      (ws) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === WebSocket.CLOSED) return resolve()
          ws.once('close', () => resolve())
          ws.close(1000)
        }),
    ),
  )

/** A replica opened the moment sqld answers /health has been seen to fail its first sync (EOF): retry, bounded. */
const retried = async <T>(open: (attempt: number) => T): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return open(attempt)
    } catch (e) {
      if (attempt >= 10) throw e
      await delay(1000)
    }
  }
}

// ---- one cluster -----------------------------------------------------------------------------

const cpuOf = (pids: readonly number[]) => pids.map((p) => readCpuSeconds(p) ?? NaN)

/** Wait until sqld's statement count has not moved for `quietMs` (bounded), so a phase's writes are all in. */
const settle = async (stats: () => Promise<SqldStats>, quietMs = 700, maxMs = 8000) => {
  let last = (await stats()).query_count
  let since = Date.now()
  const until = Date.now() + maxMs
  while (Date.now() < until) {
    await delay(100)
    const now = (await stats()).query_count
    if (now !== last) {
      last = now
      since = Date.now()
    } else if (Date.now() - since >= quietMs) return
  }
}

const runCluster = async (n: number, withConnects: boolean) => {
  const root = mkdtempSync(join(tmpdir(), 'hark-cluster-overhead-'))
  const nodes: NodeProcess[] = []
  const open: WebSocket[] = []
  let nats: Nats | null = null
  let db: Awaited<ReturnType<typeof startSqldWithStats>> | null = null
  try {
    nats = await startNats(root)
    db = await startSqldWithStats()
    const { sqld, stats, url: sqldUrl } = db
    const masterKey = randomBytes(32).toString('base64')
    // Seed the shared database as the CLI would: a workspace, N × T clients (+ the connect phase's), a token each.
    const data = await retried((attempt) =>
      openDataDir(
        resolveSettings({ file: { source: 'clusterOverhead', settings: { dataDir: join(root, `cli${attempt}`), storage: { url: sqldUrl }, security: { masterKey } } } }),
      ),
    )
    const perNode: Array<Array<string>> = []
    const extra: string[] = []
    try {
      const { workspaceId } = data.security.createWorkspace('overhead')
      const now = Date.now()
      const clients: Array<{ id: string; room: string }> = []
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < terminalsPerNode; j++) {
          const half = Math.ceil(terminalsPerNode / 2)
          const room = j < half ? `span-${j}` : `local-${i}-${Math.floor((j - half) / 2)}`
          clients.push({ id: `n${i}-t${j}`, room })
        }
      }
      const extraCount = withConnects ? extraConnects : 0
      for (let k = 0; k < extraCount; k++) clients.push({ id: `x${k}`, room: `storm-${Math.floor(k / 4)}` })
      data.storage.transaction(() => {
        for (const c of clients)
          data.storage.clients.insert({
            workspaceId, clientId: c.id, name: null, kind: null, room: c.room, ephemeral: false,
            expiresAt: null, tokensNotBefore: now - 1000, createdAt: now, updatedAt: now,
          })
      })
      for (let i = 0; i < n; i++) {
        const tokens: string[] = []
        for (let j = 0; j < terminalsPerNode; j++) tokens.push((await data.security.tokens.issue(workspaceId, `n${i}-t${j}`, null)).token)
        perNode.push(tokens)
      }
      for (let k = 0; k < extraCount; k++) extra.push((await data.security.tokens.issue(workspaceId, `x${k}`, null)).token)
    } finally {
      data.close()
    }
    say(`${n} nodes: seeded; starting the nodes`)
    for (let i = 0; i < n; i += 4) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(4, n - i) }, (_, k) =>
          spawnNode({
            nodeId: `node${i + k + 1}`,
            dataDir: join(root, `node${i + k + 1}`),
            natsUrl: nats!.url,
            flags: ['--database-url', sqldUrl],
            env: { HARK_SECURITY_MASTER_KEY: masterKey },
          }),
        ),
      )
      nodes.push(...batch)
    }
    say(`${n} nodes: running; connecting ${n * terminalsPerNode} terminals`)
    open.push(...(await connectAll(nodes.flatMap((node, i) => perNode[i]!.map((token) => ({ port: node.ports.gateway, token }))))))
    // Let the room units, leases and the first checkpoints settle (a lease tick is 1 s, the TTL 3 s).
    await delay(4000)
    const pids = nodes.map((x) => x.pid)
    const v0 = await nats.varz()
    const s0 = await stats()
    const c0 = cpuOf([...pids, nats.pid, sqld.pid])
    const t0 = performance.now()
    await delay(windowS * 1000)
    const t1 = performance.now()
    const c1 = cpuOf([...pids, nats.pid, sqld.pid])
    const s1 = await stats()
    const v1 = await nats.varz()
    const wall = (t1 - t0) / 1000
    const pct = (k: number) => +((100 * (c1[k]! - c0[k]!)) / wall).toFixed(2)
    const nodePct = pids.map((_, k) => pct(k))
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
    const idleWrites = statsDelta(s0, s1)
    const checkpoints = (n * wall * 1000) / CHECKPOINT_MS
    const idle = {
      phase: 'idle',
      nodes: n,
      terminals: n * terminalsPerNode,
      windowS: +wall.toFixed(2),
      nodeCpuPct: { mean: +mean(nodePct).toFixed(2), max: Math.max(...nodePct), each: nodePct },
      nodeRssMB: +mean(pids.map((p) => (readMemory(p)?.rssBytes ?? NaN) / 1e6)).toFixed(1),
      natsCpuPct: pct(n),
      sqldCpuPct: pct(n + 1),
      natsMsgsPerS: { in: +((v1.in_msgs - v0.in_msgs) / wall).toFixed(1), out: +((v1.out_msgs - v0.out_msgs) / wall).toFixed(1) },
      natsBytesPerS: { in: Math.round((v1.in_bytes - v0.in_bytes) / wall), out: Math.round((v1.out_bytes - v0.out_bytes) / wall) },
      natsMsgsInPerNodePerS: +((v1.in_msgs - v0.in_msgs) / wall / n).toFixed(2),
      sqld: { ...idleWrites, statementsPerS: +(idleWrites.statements / wall).toFixed(2), perCheckpoint: +(idleWrites.statements / checkpoints).toFixed(2) },
    }
    out(idle)
    if (withConnects && extra.length > 0) {
      const rate = idleWrites.statements / wall
      const phase = async (name: string, f: () => Promise<void>, count: number) => {
        await settle(stats)
        const a = await stats()
        const ca = cpuOf([pids[0]!, sqld.pid])
        const ta = performance.now()
        await f()
        await settle(stats)
        const tb = performance.now()
        const cb = cpuOf([pids[0]!, sqld.pid])
        const b = await stats()
        const d = statsDelta(a, b)
        const secs = (tb - ta) / 1000
        const background = rate * secs
        out({
          phase: name,
          nodes: n,
          count,
          seconds: +secs.toFixed(2),
          sqld: d,
          backgroundStatements: +background.toFixed(1),
          statementsPer: +((d.statements - background) / count).toFixed(3),
          rowsWrittenPer: +(d.rowsWritten / count).toFixed(3),
          writeRequestsPer: +(d.writeRequests / count).toFixed(3),
          node1CpuUsPer: Math.round(((cb[0]! - ca[0]!) * 1e6) / count),
          sqldCpuUsPer: Math.round(((cb[1]! - ca[1]!) * 1e6) / count),
          ...(process.env.HARK_BENCH_TOP_QUERIES ? { topQueries: (b as unknown as { top_queries: unknown }).top_queries } : {}),
        })
      }
      let storm: WebSocket[] = []
      await phase('connect', async () => {
        storm = await connectAll(extra.map((token) => ({ port: nodes[0]!.ports.gateway, token })))
      }, extra.length)
      await phase('disconnect', () => closeAll(storm).then(() => undefined), extra.length)
    }
    return idle
  } finally {
    await closeAll(open)
    await Promise.all(nodes.map((x) => x.kill('SIGTERM')))
    await nats?.stop()
    await db?.sqld.stop()
    rmSync(root, { recursive: true, force: true })
  }
}

// ---- the primary's ceiling for the connect-storm write pattern -----------------------------

const runPrimary = async () => {
  const db = await startSqldWithStats()
  const dir = mkdtempSync(join(tmpdir(), 'hark-primary-cost-'))
  let storage: ReturnType<typeof openStorage> | null = null
  try {
    const st = (storage = await retried((attempt) => openStorage(join(dir, `replica${attempt}.db`), { url: db.url, authToken: null })))
    const workspaceId = 'ws_primary'
    st.transaction(() => st.workspaces.insert({ workspaceId, name: 'primary', createdAt: Date.now() }))
    let serial = 0
    for (const k of [1, 8, 64]) {
      const transactions = k === 64 ? 40 : k === 8 ? 120 : 300
      const open = () => {
        const at = Date.now()
        st.transaction(() => {
          for (let r = 0; r < k; r++)
            st.usage.open({ sessionId: `s${serial++}`, workspaceId, clientId: `c${serial}`, transport: 'websocket', node: st.origin, startedAt: at })
        })
      }
      for (let i = 0; i < 5; i++) open()
      const a = await db.stats()
      const ca = cpuOf([db.sqld.pid, process.pid])
      const ta = performance.now()
      for (let i = 0; i < transactions; i++) open()
      const tb = performance.now()
      const cb = cpuOf([db.sqld.pid, process.pid])
      const b = await db.stats()
      const d = statsDelta(a, b)
      const msPerTx = (tb - ta) / transactions
      out({
        phase: 'primary',
        rowsPerTransaction: k,
        transactions,
        msPerTransaction: +msPerTx.toFixed(3),
        serialTransactionsPerS: Math.round(1000 / msPerTx),
        serialRowsPerS: Math.round((1000 * k) / msPerTx),
        statementsPerTransaction: +(d.statements / transactions).toFixed(2),
        writeRequestsPerTransaction: +(d.writeRequests / transactions).toFixed(2),
        sqldCpuUsPerTransaction: Math.round(((cb[0]! - ca[0]!) * 1e6) / transactions),
        sqldCpuUsPerRow: +(((cb[0]! - ca[0]!) * 1e6) / (transactions * k)).toFixed(1),
        sqldCpuPct: +((100 * (cb[0]! - ca[0]!)) / ((tb - ta) / 1000)).toFixed(1),
        clientCpuUsPerTransaction: Math.round(((cb[1]! - ca[1]!) * 1e6) / transactions),
      })
    }
    // A usage checkpoint is one UPDATE of every open session of the node: its cost grows with them.
    // Open sessions are put in on the primary in bulk (sqld's HTTP API, one statement), then the
    // node's checkpoint statement runs through the replica, as the meter runs it.
    const bulk = async (sql: string) => {
      const r = await fetch(`${db.url}/v2/pipeline`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ requests: [{ type: 'execute', stmt: { sql } }, { type: 'close' }] }),
      })
      if (!r.ok) throw new Error(`sqld pipeline: ${r.status} ${await r.text()}`)
    }
    await bulk(`UPDATE usage_sessions SET ended_at = started_at WHERE ended_at IS NULL`)
    let inserted = 0
    for (const openSessions of [1000, 10_000, 50_000]) {
      const add = openSessions - inserted
      await bulk(
        `INSERT INTO usage_sessions (session_id, workspace_id, client_id, transport, node, started_at, checkpoint_at) ` +
          `WITH RECURSIVE n(i) AS (SELECT ${inserted} UNION ALL SELECT i + 1 FROM n WHERE i < ${openSessions - 1}) ` +
          `SELECT 'bulk' || i, '${workspaceId}', 'c' || i, 'websocket', '${st.origin}', ${Date.now()}, ${Date.now()} FROM n`,
      )
      inserted += add
      const rounds = 3
      const a = await db.stats()
      const ca = cpuOf([db.sqld.pid])
      const ta = performance.now()
      let changed = 0
      for (let i = 0; i < rounds; i++) changed = st.usage.checkpoint(st.origin, Date.now())
      const tb = performance.now()
      const cb = cpuOf([db.sqld.pid])
      const b = await db.stats()
      out({
        phase: 'checkpoint',
        openSessions,
        rowsUpdated: changed,
        msPerCheckpoint: +((tb - ta) / rounds).toFixed(2),
        sqldCpuMsPerCheckpoint: +(((cb[0]! - ca[0]!) * 1000) / rounds).toFixed(1),
        sqldCpuUsPerOpenSession: +(((cb[0]! - ca[0]!) * 1e6) / (rounds * openSessions)).toFixed(2),
        rowsWrittenPerCheckpoint: Math.round((b.rows_written_count - a.rows_written_count) / rounds),
        statementsPerCheckpoint: +((b.query_count - a.query_count) / rounds).toFixed(2),
      })
      // Each checkpoint tick also runs the orphan recovery: a transaction on the primary that reads
      // every open session of the other nodes (here all of them: the bulk rows carry this node's
      // origin, the recovery is asked for as another node), none judged dead.
      const ra = await db.stats()
      const ra0 = cpuOf([db.sqld.pid])
      const rta = performance.now()
      for (let i = 0; i < rounds; i++) st.usage.recoverOrphans('another-node', () => false)
      const rtb = performance.now()
      const ra1 = cpuOf([db.sqld.pid])
      const rb = await db.stats()
      out({
        phase: 'orphan-scan',
        otherNodesOpenSessions: openSessions,
        msPerScan: +((rtb - rta) / rounds).toFixed(2),
        sqldCpuMsPerScan: +(((ra1[0]! - ra0[0]!) * 1000) / rounds).toFixed(1),
        rowsReadPerScan: Math.round((rb.rows_read_count - ra.rows_read_count) / rounds),
        statementsPerScan: +((rb.query_count - ra.query_count) / rounds).toFixed(2),
      })
    }
  } finally {
    storage?.close()
    await db.sqld.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

// ---- CPU per connect of an engine on its file against one on sqld ----------------------------

/**
 * connectCost.js's measure (the engine in this process, its CPU by process.cpuUsage() — every thread,
 * libSQL's too — around N connects and N disconnects of real `ws` clients in a child process, 64 at
 * a time), once with the engine's database a local file and once on sqld: what the shared database
 * adds to a connect on the node, with sqld's CPU and statements per connect beside it.
 */
const runConnectCpu = async (n: number, rounds = 3) => {
  for (const where of ['file', 'sqld'] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'hark-connect-cpu-'))
    const db = where === 'sqld' ? await startSqldWithStats() : null
    const remote = db ? { storage: { url: db.url }, security: { masterKey: randomBytes(32).toString('base64') } } : {}
    const engine = createEngine({ dataDir: dir, log: { level: 'silent' }, rest: { port: 0 }, gateway: { port: 0 }, extensions: [websocketTransport], ...remote })
    const child = fork(new URL('./workers/connectCostClients.js', import.meta.url), [], { stdio: 'inherit', execArgv: [] })
    try {
      await engine.start()
      const { security, storage, clock, terminals } = engine.host
      const { workspaceId } = security.createWorkspace('bench')
      const tokens: string[] = []
      const now = clock.now()
      storage.transaction(() => {
        for (let i = 0; i < n; i++)
          storage.clients.insert({
            workspaceId, clientId: `c${i}`, name: null, kind: null, room: `r${i % 50}`, ephemeral: false,
            expiresAt: null, tokensNotBefore: now - 1000, createdAt: now, updatedAt: now,
          })
      })
      for (let i = 0; i < n; i++) tokens.push((await security.tokens.issue(workspaceId, `c${i}`, null)).token)
      let ended = 0
      let waiting: { until: number; resolve: () => void } | null = null
      terminals.on('session.ended', () => {
        ended++
        if (waiting !== null && ended >= waiting.until) waiting.resolve()
      })
      const ask = (request: ClientsRequest) =>
        new Promise<void>((resolve) => {
          child.once('message', () => resolve())
          child.send(request)
        })
      const cpuUs = () => {
        const u = process.cpuUsage()
        return u.user + u.system
      }
      await ask({ type: 'init', url: `wss://127.0.0.1:${engine.ports.gateway}/v1/connect?token=`, tokens, ca: engine.host.tls.cert })
      const runs: Array<Record<string, number>> = []
      for (let r = 0; r <= rounds; r++) {
        const s0 = db ? await db.stats() : null
        const q0 = db ? cpuOf([db.sqld.pid])[0]! : 0
        const c0 = cpuUs()
        const t0 = performance.now()
        await ask({ type: 'connect' })
        const t1 = performance.now()
        const c1 = cpuUs()
        const s1 = db ? await db.stats() : null
        const q1 = db ? cpuOf([db.sqld.pid])[0]! : 0
        const allEnded = new Promise<void>((resolve) => (waiting = { until: ended + n, resolve }))
        await ask({ type: 'close' })
        await allEnded
        const c2 = cpuUs()
        const s2 = db ? await db.stats() : null
        const q2 = db ? cpuOf([db.sqld.pid])[0]! : 0
        if (r === 0) continue // warm-up
        runs.push({
          connectUs: Math.round((c1 - c0) / n),
          disconnectUs: Math.round((c2 - c1) / n),
          connectsPerS: Math.round(n / ((t1 - t0) / 1000)),
          ...(db
            ? {
                sqldConnectUs: Math.round(((q1 - q0) * 1e6) / n),
                sqldDisconnectUs: Math.round(((q2 - q1) * 1e6) / n),
                statementsPerConnect: +((s1!.query_count - s0!.query_count) / n).toFixed(2),
                statementsPerDisconnect: +((s2!.query_count - s1!.query_count) / n).toFixed(2),
              }
            : {}),
        })
      }
      const median = (k: string) => runs.map((x) => x[k]!).sort((a, b) => a - b)[Math.floor(runs.length / 2)]
      out({
        phase: 'connect-cpu',
        database: where,
        n,
        rounds,
        ...Object.fromEntries(Object.keys(runs[0]!).map((k) => [k, median(k)])),
        runs,
      })
    } finally {
      child.kill()
      await engine.stop()
      await db?.sqld.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

let stopping = false
const onSignal = () => {
  if (stopping) return
  stopping = true
  say('signal: stopping (the finally blocks stop every process this started)')
}
process.on('SIGINT', onSignal)
process.on('SIGTERM', onSignal)

const idles = []
for (const [i, n] of nodeCounts.entries()) {
  if (stopping) break
  idles.push(await runCluster(n, i === 0))
}
if (primaryPhase && !stopping) await runPrimary()
if (connectCpuN > 0 && !stopping) await runConnectCpu(connectCpuN)
out({
  phase: 'summary',
  perNode: idles.map((x) => ({
    nodes: x.nodes,
    nodeCpuPct: x.nodeCpuPct.mean,
    natsCpuPct: x.natsCpuPct,
    sqldCpuPct: x.sqldCpuPct,
    natsMsgsInPerNodePerS: x.natsMsgsInPerNodePerS,
    natsMsgsOutPerS: x.natsMsgsPerS.out,
    sqldStatementsPerS: x.sqld.statementsPerS,
  })),
})
