/**
 * cluster: what a room spanning two nodes costs against the same room on one node, side by side
 * in one run (issue 17). Both sides run the same cluster: a NATS server (Debian's nats-server)
 * and two Hark nodes, all three pinned to the server core; rooms of 4 over WSS, 2 talkers at
 * 50 frames/s (~100 B) and 2 listeners. Side `cross-node` (Hark's): the talkers on node A, the
 * listeners on node B, so each frame is delivered once on A (the other talker) and twice on B,
 * carried A→B by NATS. Side `same-node`: the whole room on node A. The headline is deliveries/s
 * (equal when nothing is lost); what counts is `extra`: server CPU per delivery (µs, nodes and
 * NATS together), each node's and NATS's CPU, and the latency (p50/p99 of the table) of both.
 * Always the Node generator: it connects each member to its own node's port.
 */
import { connect } from 'node:net'
import { cpSync, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { defineScenario, type MeasureContext, type Measurement } from '../scenario.js'
import { natsServerBinary } from '../../servers/nats.js'
import { delay } from '../harness/clock.js'
import { serverCpus } from '../harness/cores.js'
import { seededClient, seedHark, startHark, type HarkSeed } from '../harness/hark.js'
import { repoRoot } from '../harness/paths.js'
import { freePort } from '../harness/ports.js'
import { roomMembers, roomsFor, runRoomLoad } from '../generators/rooms.js'
import { protocols } from '../generators/generator.js'

const ROOM_SIZE = 4
const TALKERS_PER_ROOM = 2
const MAX_TALKERS = 1000

interface Fixture {
  readonly seed: HarkSeed
}

/** Accepting TCP on `port`: a bounded poll (one try per 50 ms), as startHark does for /healthz. */
const listening = async (port: number, ctx: MeasureContext, timeoutMs = 10_000): Promise<void> => {
  for (let i = 0; i < timeoutMs / 50; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => (s.destroy(), resolve(true)))
      s.once('error', () => resolve(false))
    })
    if (ok) return
    await delay(50, ctx.signal)
  }
  throw new Error(`nats-server did not listen on ${port} within ${timeoutMs} ms`)
}

const runCluster = async (ctx: MeasureContext, f: Fixture, crossNode: boolean): Promise<Measurement> => {
  const side = crossNode ? 'cross' : 'same'
  const natsPort = await freePort()
  const store = join(ctx.dir, `nats-${side}-${ctx.round}`)
  mkdirSync(store, { recursive: true })
  const cpus = serverCpus(ctx.cores)
  const nats = ctx.procs.spawn({
    name: `nats-${side}`,
    command: natsServerBinary(),
    args: ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', store],
    cpus,
    cwd: repoRoot,
    logFile: ctx.logFile(`nats-${side}`),
  })
  await listening(natsPort, ctx)
  const nodes = []
  for (const name of ['a', 'b']) {
    const dataDir = join(ctx.dir, `node-${name}-${side}-${ctx.round}`)
    rmSync(dataDir, { recursive: true, force: true })
    cpSync(f.seed.dataDir, dataDir, { recursive: true })
    nodes.push(
      await startHark(ctx, {
        dataDir,
        cpus,
        name: `node-${name}-${side}`,
        extraArgs: ['--cluster-nats-url', `nats://127.0.0.1:${natsPort}`, '--cluster-node-id', `${name}-${side}`],
      }),
    )
  }
  const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]]
  const members = roomMembers({ ...roomsFor(ctx.load, ROOM_SIZE, TALKERS_PER_ROOM), clientOf: seededClient(f.seed) }).map((m) => ({
    ...m,
    port: m.talker || !crossNode ? a.ports.gateway : b.ports.gateway,
  }))
  const m = await runRoomLoad(
    { ...ctx, generator: 'node' },
    {
      protocol: protocols.harkWs,
      target: { host: '127.0.0.1', port: a.ports.gateway, options: {} },
      members,
      serverPids: [a.proc.pid, b.proc.pid, nats.pid],
      serverParts: { nodeA: a.proc.pid, nodeB: b.proc.pid, nats: nats.pid },
    },
  )
  const cpuUs = (percent: number) => (m.value > 0 ? ((percent / 100) * 1e6) / m.value : 0)
  return {
    ...m,
    extra: {
      ...m.extra,
      serverCpuUsPerDelivery: cpuUs(m.server.cpuPercent),
      nodeACpuUsPerDelivery: cpuUs(m.extra.nodeACpuPercent ?? 0),
      nodeBCpuUsPerDelivery: cpuUs(m.extra.nodeBCpuPercent ?? 0),
      natsCpuUsPerDelivery: cpuUs(m.extra.natsCpuPercent ?? 0),
    },
  }
}

export default defineScenario<Fixture>({
  name: 'cluster',
  description: `rooms of ${ROOM_SIZE} over WSS on a 2-node cluster (NATS), ${TALKERS_PER_ROOM} talkers at 50 frames/s: talkers and listeners on different nodes vs one node`,
  unit: 'deliveries/s',
  higherIsBetter: true,
  goal: { text: 'cross-node p99 ≤ same-node + 2 ms; a cross-node delivery ≤ 1.5× the CPU of a same-node one' },
  load: { quick: 200, full: 600, unit: 'talkers' },
  setup: async (ctx) => ({
    seed: await seedHark(ctx, { dataDir: join(ctx.dir, 'hark-data'), clients: MAX_TALKERS * 2, tokensPerClient: 1, roomSize: ROOM_SIZE }),
  }),
  hark: {
    name: 'hark',
    label: 'Hark cross-node: talkers on node A, listeners on node B, frames A→B over NATS 2.9.10',
    measure: (ctx, f) => runCluster(ctx, f, true),
  },
  peers: [
    {
      name: 'same-node',
      label: 'Hark same-node: the whole room on node A (same cluster, node B idle)',
      measure: (ctx, f) => runCluster(ctx, f, false),
    },
  ],
})
