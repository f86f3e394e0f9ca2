/**
 * A Hark cluster on loopback for tests: a NATS server (servers/nats.ts), a libSQL server
 * (servers/sqld.ts) holding the one database, and N nodes, each a full engine (engine.config.ts's
 * extensions) on free ports with `cluster.natsUrl` and `storage.url` set, in one process. The
 * change poll runs at its slowest (1 s), so what reaches another node sooner came over NATS.
 */
import { randomBytes } from 'node:crypto'
import defaultConfig from '../../engine.config.js'
import { defineCluster } from '../../core/extension.js'
import { NatsClusterNode } from '../nats/node.js'
import { startNats, type NatsServer } from '../../servers/nats.js'
import { startSqld, type Sqld } from '../../servers/sqld.js'
import type { Engine, EngineConfig } from '../../core/index.js'
import { createTestEngine, seedWorkspace, tempDir } from '../../core/test/helpers.js'

export interface TestNode {
  readonly engine: Engine
  readonly nodeId: string
  readonly rest: (path: string) => string
  /** The node's part of the cluster (its relay, for the relay link's tests). */
  readonly cluster: NatsClusterNode
}

/** The built-in extensions, with the NATS cluster's nodes kept by node id for the tests. */
const joined = new Map<string, NatsClusterNode>()
const keptCluster = defineCluster('nats', () => ({
  join: async (options) => {
    const node = new NatsClusterNode(options)
    joined.set(options.nodeId, node)
    return node
  },
}))
const extensions = (defaultConfig.extensions ?? []).map((e) => (e.kind === 'cluster' ? keptCluster : e))

export const startCluster = async (n: number, { leaseTtlMs = 3000, agents = {} as Record<string, unknown> } = {}) => {
  const nats: NatsServer = await startNats()
  const sqld: Sqld = await startSqld()
  const masterKey = randomBytes(32).toString('base64')
  const dirs: Array<{ path: string; remove: () => void }> = []
  const nodeConfig = (i: number, natsUrl: string | null) => {
    const dir = tempDir(`hark-node${i}-`)
    dirs.push(dir)
    return {
      extensions,
      dataDir: dir.path,
      mqtt: { port: 0, tlsPort: null },
      gateway: { port: 0 },
      storage: { url: sqld.url, changePollMs: 1000 },
      security: { masterKey },
      cluster: { natsUrl, nodeId: natsUrl ? `n${i}` : null, leaseTtlMs },
      agents,
    } as EngineConfig & { dataDir: string }
  }
  // The workspace, its clients, tokens and device passwords: written once, in the shared database.
  const seeding = createTestEngine(nodeConfig(0, null))
  await seeding.start()
  const seed = seedWorkspace(seeding)
  const { security } = seeding.host
  const clientIds = ['ws1', 'ws2', 'mq1', 'mq2', 'rtc1', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'k', 'l']
  for (const id of clientIds) seed.addClient(id, 'lobby')
  // Clients of the member-list test, in a room of their own; and of the relay link's.
  for (const id of ['h', 'i', 'j']) seed.addClient(id, 'atrium')
  for (const id of ['m', 'n']) seed.addClient(id, 'porch')
  clientIds.push('h', 'i', 'j', 'm', 'n')
  const tokens = new Map<string, string>()
  const passwords = new Map<string, string>()
  for (const id of clientIds) {
    tokens.set(id, (await security.tokens.issue(seed.workspaceId, id, null)).token)
    passwords.set(id, security.devicePasswords.reset(seed.workspaceId, id).password)
  }
  await seeding.stop()

  const nodes: TestNode[] = []
  for (let i = 1; i <= n; i++) {
    const engine = createTestEngine(nodeConfig(i, nats.url))
    await engine.start()
    nodes.push({ engine, nodeId: `n${i}`, rest: (p: string) => `http://127.0.0.1:${engine.ports.rest}${p}`, cluster: joined.get(`n${i}`)! })
  }
  return {
    nats,
    sqld,
    nodes,
    seed,
    token: (id: string) => tokens.get(id)!,
    password: (id: string) => passwords.get(id)!,
    stop: async () => {
      await Promise.all(nodes.map((node) => node.engine.stop().catch(() => {})))
      await nats.stop()
      await sqld.stop()
      for (const d of dirs) d.remove()
    },
  }
}

export type TestCluster = Awaited<ReturnType<typeof startCluster>>
