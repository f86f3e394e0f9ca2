/**
 * What the connection scenarios (connect-storm, idle-memory) share: seeding Hark with clients in
 * rooms of 4 and one token each, the TLS pair the bare uWS peer serves, and the connection load
 * aimed at either side — Hark's gateway speaking terminal protocol v1, or the peer's pub/sub.
 */
import { join } from 'node:path'
import { loadTls, type TlsMaterial } from '../../core/tls.js'
import type { ConnectionLoadSpec } from '../generators/connections.js'
import { roomMembers } from '../generators/rooms.js'
import { protocols } from '../generators/generator.js'
import { serverCpus } from '../harness/cores.js'
import { seededClient, seedHark, startHark, type HarkSeed } from '../harness/hark.js'
import { startPeer } from '../peers/start.js'
import type { MeasureContext, SetupContext } from '../scenario.js'

export interface WsTerminalsFixture {
  readonly tls: TlsMaterial
  readonly seed: HarkSeed
}

export const ROOM_SIZE = 4

const shape = (terminals: number) => ({ rooms: Math.ceil(terminals / ROOM_SIZE), roomSize: ROOM_SIZE, talkersPerRoom: 0 })

/**
 * Seed as many clients as any run will connect — `quick` of them for a quick run without a
 * sweep, else `full` (or `--load`'s level when higher), or `sweepClients` when a sweep needs more — and make the peer's TLS pair.
 */
export const setupWsTerminals = async (
  ctx: SetupContext,
  load: { quick: number; full: number },
  sweepClients = 0,
): Promise<WsTerminalsFixture> => {
  const clients = ctx.sweep ? Math.max(load.full, sweepClients, ctx.load) : Math.max(ctx.quick ? load.quick : load.full, ctx.load)
  const tls = await loadTls({ certFile: null, keyFile: null, dataDir: ctx.dir, host: '127.0.0.1' })
  const seed = await seedHark(ctx, { dataDir: join(ctx.dir, 'hark-data'), clients, tokensPerClient: 1, roomSize: ROOM_SIZE })
  return { tls, seed }
}

/** Start Hark on the server core; the load connects `count` seeded terminals to its gateway. */
export const harkTerminals = async (ctx: MeasureContext, f: WsTerminalsFixture, count = ctx.load): Promise<ConnectionLoadSpec> => {
  const hark = await startHark(ctx, { dataDir: f.seed.dataDir, cpus: serverCpus(ctx.cores) })
  return {
    protocol: protocols.harkWs,
    target: { host: '127.0.0.1', port: hark.ports.gateway, options: {} },
    members: roomMembers({
      ...shape(count),
      clientOf: seededClient(f.seed),
    }).slice(0, count),
    serverPids: [hark.proc.pid],
    heapSnapshot: true,
  }
}

/** Start the bare uWS peer; the load connects `count` plain subscribers to it. */
export const uwsTerminals = async (ctx: MeasureContext, f: WsTerminalsFixture, count = ctx.load): Promise<ConnectionLoadSpec> => {
  const peer = await startPeer(ctx, { name: 'uws', module: 'peers/uwsFanout', args: ['--cert', f.tls.certFile, '--key', f.tls.keyFile] })
  return {
    protocol: protocols.wsPubSub,
    target: { host: '127.0.0.1', port: peer.port, options: { tls: true, path: '/v1/connect' } },
    members: roomMembers(shape(count)).slice(0, count),
    serverPids: [peer.pid],
  }
}
