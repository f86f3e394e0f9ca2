/**
 * nodes: what `hark start --nodes 2` costs against `--nodes 1` on the same load (issue 40). The
 * ws-rooms load (rooms of 4 over WSS, all 4 talking at 50 frames/s, ~100 B) against one `hark
 * start`, run as an operator would: side `hark` with `--nodes 2` (a supervisor, two engine
 * processes sharing the ports, a NATS server it starts), side `hark-1node` with the default
 * `--nodes 1`. Terminals land on either node (the kernel spreads WSS connections over the nodes'
 * gateway sockets), so most rooms span both nodes and their frames cross between the processes (on
 * the relay link, a Unix socket on one machine): the cost of spreading a machine's terminals over
 * processes as they come. A third side, in full runs only, runs two independent engines (no
 * cluster, whole rooms each) on the same core: what two processes sharing one core cost by
 * themselves, so the cluster's own part is `hark` ÷ `hark-2solo`.
 * Both sides' server processes are pinned to the server core (the supervisor, the nodes and NATS
 * of `--nodes 2` together), the generator to the other: on this 2-core machine the scenario
 * measures cost, not the throughput of two cores. Headline deliveries/s; what judges is server
 * CPU per delivery (the ratio per server CPU-second): goal `--nodes 2` ≤ 1.25× `--nodes 1`.
 * Projection to K cores: K nodes carry K × (one node's talkers per core) ÷ that ratio, as long as
 * each node has a core of its own and the share of crossing deliveries stays what it is with 2
 * nodes (with K nodes and terminals spread at random, a room of 4 spans more nodes: the crossing
 * share rises towards 1 - 1/K; the `cluster` scenario and spec/cluster.md give its price).
 */
import { cpSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { defineScenario, type MeasureContext, type Measurement } from '../scenario.js'
import { serverCpus } from '../harness/cores.js'
import { seededClient, seedHark, startHark, type HarkSeed } from '../harness/hark.js'
import { delay } from '../harness/clock.js'
import { roomMembers, roomsFor, runRoomLoad } from '../generators/rooms.js'
import { protocols } from '../generators/generator.js'

const ROOM_SIZE = 4
const TALKERS_PER_ROOM = 4
const MAX_TALKERS = 1000
const NODES = 2

interface Fixture {
  readonly seed: HarkSeed
}

/** The PIDs a `--nodes N` supervisor printed once every node was ready (bounded poll of its log). */
export const readyNodePids = (log: string, count: number): number[] | null => {
  const line = log.split('\n').find((l) => l.includes(`${count} nodes in a cluster over NATS`))
  if (!line) return null
  const pids = [...line.matchAll(/\(pid (\d+)\)/g)].map((m) => Number(m[1]))
  return pids.length === count ? pids : null
}

/** Every process under `pid` (its children, theirs, …), from /proc. */
const descendants = (pid: number): number[] => {
  const out: number[] = []
  const visit = (p: number) => {
    let children: number[] = []
    try {
      children = readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
    } catch {
      return
    }
    for (const c of children) {
      out.push(c)
      visit(c)
    }
  }
  visit(pid)
  return out
}

const measureSide = async (ctx: MeasureContext, f: Fixture, name: string, nodes: number): Promise<Measurement> => {
  const hark = await startHark(ctx, {
    dataDir: f.seed.dataDir,
    cpus: serverCpus(ctx.cores),
    name,
    extraArgs: nodes > 1 ? ['--nodes', String(nodes)] : [],
  })
  let serverPids = [hark.proc.pid]
  let serverParts: Record<string, number> | undefined
  if (nodes > 1) {
    ctx.phase(`waiting for ${nodes} nodes`)
    let pids: number[] | null = null
    for (let i = 0; i < 600 && pids === null; i++) {
      pids = readyNodePids(readFileSync(ctx.logFile(name), 'utf8'), nodes)
      if (pids === null) await delay(50, ctx.signal)
    }
    if (pids === null) throw new Error(`${name}: the ${nodes} nodes did not say they were ready within 30 s; see ${ctx.logFile(name)}`)
    const all = descendants(hark.proc.pid)
    const nats = all.find((p) => !pids!.includes(p))
    serverPids = [hark.proc.pid, ...all]
    serverParts = { supervisor: hark.proc.pid, ...Object.fromEntries(pids.map((p, i) => [`node${i + 1}`, p])), ...(nats ? { nats } : {}) }
  }
  return runRoomLoad(ctx, {
    protocol: protocols.harkWs,
    target: { host: '127.0.0.1', port: hark.ports.gateway, options: {} },
    members: roomMembers({ ...roomsFor(ctx.load, ROOM_SIZE, TALKERS_PER_ROOM), clientOf: seededClient(f.seed) }),
    serverPids,
    ...(serverParts ? { serverParts } : {}),
  })
}

/**
 * Two independent `hark start` processes (no cluster), each with whole rooms (even rooms on one,
 * odd on the other; each on its own copy of the seeded data), both on the server core: what two
 * engine processes time-sharing one core cost by themselves, with nothing crossing between them.
 */
const measureSolo = async (ctx: MeasureContext, f: Fixture): Promise<Measurement> => {
  const harks = []
  for (const i of [1, 2]) {
    const dataDir = join(ctx.dir, `hark-solo-${i}`)
    rmSync(dataDir, { recursive: true, force: true })
    cpSync(f.seed.dataDir, dataDir, { recursive: true })
    harks.push(await startHark(ctx, { dataDir, cpus: serverCpus(ctx.cores), name: `hark-2solo-${i}` }))
  }
  const [a, b] = harks as [(typeof harks)[0], (typeof harks)[0]]
  const members = roomMembers({ ...roomsFor(ctx.load, ROOM_SIZE, TALKERS_PER_ROOM), clientOf: seededClient(f.seed) })
  return runRoomLoad(ctx, {
    protocol: protocols.harkWs,
    target: { host: '127.0.0.1', port: a.ports.gateway, options: {} },
    members: members.map((m) => (Math.floor(m.index / ROOM_SIZE) % 2 === 1 ? { ...m, port: b.ports.gateway } : m)),
    serverPids: [a.proc.pid, b.proc.pid],
    serverParts: { solo1: a.proc.pid, solo2: b.proc.pid },
  })
}

export default defineScenario<Fixture>({
  name: 'nodes',
  description: `ws-rooms' load (rooms of ${ROOM_SIZE}, all talking, 50 frames/s) against hark start --nodes ${NODES} and --nodes 1, every server process on the server core`,
  unit: 'deliveries/s',
  higherIsBetter: true,
  goal: {
    perCpuRatios: { 'hark-1node': 0.8 },
    text: `--nodes ${NODES} costs ≤ 1.25× the server CPU per delivery of --nodes 1 (≥ 0.8× per server CPU-second)`,
  },
  load: { quick: 200, full: 400, unit: 'talkers' },
  setup: async (ctx) => ({
    seed: await seedHark(ctx, { dataDir: join(ctx.dir, 'hark-data'), clients: MAX_TALKERS, tokensPerClient: 1, roomSize: ROOM_SIZE }),
  }),
  hark: {
    name: 'hark',
    label: `hark start --nodes ${NODES} (supervisor, ${NODES} engine processes, NATS), all on the server core`,
    measure: (ctx, f) => measureSide(ctx, f, 'hark', NODES),
  },
  peers: [
    {
      name: 'hark-1node',
      label: 'hark start (--nodes 1, the default): one engine process',
      measure: (ctx, f) => measureSide(ctx, f, 'hark-1node', 1),
    },
    {
      name: 'hark-2solo',
      fullOnly: true,
      label: 'two independent hark start processes (no cluster), whole rooms each, both on the server core',
      measure: (ctx, f) => measureSolo(ctx, f),
    },
  ],
})
