/**
 * A Hark cluster on loopback for tests: a NATS server (core/cluster/natsServer.ts) and N nodes,
 * each a full engine (engine.config.ts's extensions) on free ports with `cluster.natsUrl` set, in
 * one process. The nodes share one workspace: its rows are written once and the data dir copied
 * to every node before it starts, so a token or device password issued once is valid on all.
 */
import { cpSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import defaultConfig from '../../engine.config.js'
import { startNats, type NatsServer } from '../../servers/nats.js'
import type { Engine, EngineConfig } from '../../core/index.js'
import { createTestEngine, seedWorkspace, tempDir } from '../../core/test/helpers.js'

export interface TestNode {
  readonly engine: Engine
  readonly dir: string
  readonly nodeId: string
  readonly rest: (path: string) => string
}

const extensions = defaultConfig.extensions ?? []
const nodeConfig = (dataDir: string, natsUrl: string | null, nodeId: string | null, leaseTtlMs: number): EngineConfig =>
  ({
    extensions,
    dataDir,
    mqtt: { port: 0, tlsPort: null },
    gateway: { port: 0 },
    cluster: { natsUrl, nodeId, leaseTtlMs },
  }) as EngineConfig

export const startCluster = async (n: number, { leaseTtlMs = 3000 } = {}) => {
  const nats: NatsServer = await startNats()
  const seedDir = tempDir('hark-cluster-seed-')
  const seeding = createTestEngine(nodeConfig(seedDir.path, null, null, leaseTtlMs) as EngineConfig & { dataDir: string })
  await seeding.start()
  const seed = seedWorkspace(seeding)
  const { security } = seeding.host
  const clientIds = ['ws1', 'ws2', 'mq1', 'mq2', 'rtc1', 'a', 'b', 'c', 'd', 'e', 'f', 'g']
  for (const id of clientIds) seed.addClient(id, 'lobby')
  const tokens = new Map<string, string>()
  const passwords = new Map<string, string>()
  for (const id of clientIds) {
    tokens.set(id, (await security.tokens.issue(seed.workspaceId, id, null)).token)
    passwords.set(id, security.devicePasswords.reset(seed.workspaceId, id).password)
  }
  await seeding.stop()

  const dirs: Array<{ path: string; remove: () => void }> = []
  const nodes: TestNode[] = []
  const startNode = async (i: number, dir?: string): Promise<TestNode> => {
    let path = dir
    if (!path) {
      const d = tempDir(`hark-node${i}-`)
      dirs.push(d)
      cpSync(seedDir.path, d.path, { recursive: true })
      rmSync(join(d.path, 'node-id'), { force: true })
      path = d.path
    }
    const engine = createTestEngine(nodeConfig(path, nats.url, `n${i}`, leaseTtlMs) as EngineConfig & { dataDir: string })
    await engine.start()
    return {
      engine,
      dir: path,
      nodeId: `n${i}`,
      rest: (p: string) => `http://127.0.0.1:${engine.ports.rest}${p}`,
    }
  }
  for (let i = 1; i <= n; i++) nodes.push(await startNode(i))
  return {
    nats,
    nodes,
    seed,
    token: (id: string) => tokens.get(id)!,
    password: (id: string) => passwords.get(id)!,
    /** Start node i again on its data dir (after a kill or a stop). */
    restartNode: async (i: number) => (nodes[i - 1] = await startNode(i, nodes[i - 1]!.dir)),
    stop: async () => {
      await Promise.all(nodes.map((node) => node.engine.stop().catch(() => {})))
      await nats.stop()
      for (const d of [seedDir, ...dirs]) d.remove()
    },
  }
}

export type TestCluster = Awaited<ReturnType<typeof startCluster>>
