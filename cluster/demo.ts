/**
 * `npm run cluster:demo -- --nodes N [--json]`: a NATS server, a libSQL server (sqld) holding the
 * database, and N Hark nodes (each its own process, every port free, one master key passed in the
 * environment) on 127.0.0.1, one demo workspace with an API key; prints where
 * everything listens (`--json`: exactly one JSON line on stdout), runs until SIGINT or SIGTERM,
 * then stops everything it started, by PID, and removes its temp dirs.
 *
 *   {"nats":"nats://127.0.0.1:4222","database":"http://127.0.0.1:8081","workspaceId":"ws_…",
 *    "apiKey":"hk_…","nodes":[{"nodeId":"node1","rest":8080,"gateway":8443,"mqtt":2883}, …]}
 *
 * The master key is printed to stderr (not in the JSON line) so the CLI can join:
 * `HARK_SECURITY_MASTER_KEY=… hark client create … --database-url <database>`.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resolveSettings } from '../core/config.js'
import { openDataDir } from '../core/dataDir.js'
import { startNats } from '../servers/nats.js'
import { startSqld } from '../servers/sqld.js'
import { spawnNode, type NodeProcess } from './spawnNode.js'

const usage = 'usage: npm run cluster:demo -- --nodes N [--json]'

const parse = (argv: ReadonlyArray<string>) => {
  let nodes = 3
  let json = false
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--json') json = true
    else if (arg === '--nodes' || arg.startsWith('--nodes=')) {
      const value = arg.includes('=') ? arg.slice(8) : argv[++i]
      nodes = Number(value)
      if (!Number.isInteger(nodes) || nodes < 1 || nodes > 16) throw new Error(`--nodes must be an integer 1–16, not ${value}\n${usage}`)
    } else throw new Error(`unknown argument ${arg}\n${usage}`)
  }
  return { nodes, json }
}

const main = async () => {
  const { nodes: count, json } = parse(process.argv.slice(2))
  const say = (line: string) => process.stderr.write(`cluster-demo: ${line}\n`)
  const root = mkdtempSync(join(tmpdir(), 'hark-cluster-demo-'))
  const started: NodeProcess[] = []
  let nats: Awaited<ReturnType<typeof startNats>> | null = null
  let sqld: Awaited<ReturnType<typeof startSqld>> | null = null
  let stopping: Promise<void> | null = null
  const stopAll = () =>
    (stopping ??= (async () => {
      await Promise.all(started.map((n) => n.kill('SIGTERM')))
      await nats?.stop()
      await sqld?.stop()
      rmSync(root, { recursive: true, force: true })
    })())
  const onSignal = (signal: string) => {
    say(`${signal}: stopping ${started.length} nodes and NATS`)
    void stopAll().then(() => process.exit(0))
  }
  process.on('SIGINT', () => onSignal('SIGINT'))
  process.on('SIGTERM', () => onSignal('SIGTERM'))
  try {
    nats = await startNats()
    sqld = await startSqld()
    const masterKey = randomBytes(32).toString('base64')
    const shared = { storage: { url: sqld.url }, security: { masterKey } }
    const data = openDataDir(resolveSettings({ file: { source: 'cluster demo', settings: { dataDir: join(root, 'cli'), ...shared } } }))
    const workspace = data.security.createWorkspace('cluster demo')
    const key = data.security.apiKeys.create(workspace.workspaceId, 'cluster demo')
    data.close()
    for (let i = 1; i <= count; i++) {
      started.push(
        await spawnNode({
          nodeId: `node${i}`,
          dataDir: join(root, `node${i}`),
          natsUrl: nats.url,
          flags: ['--database-url', sqld.url],
          env: { HARK_SECURITY_MASTER_KEY: masterKey },
          log: json ? undefined : (chunk) => process.stderr.write(chunk),
        }),
      )
    }
    say(`master key (for the CLI on this database): HARK_SECURITY_MASTER_KEY=${masterKey}`)
    const out = {
      nats: nats.url,
      database: sqld.url,
      workspaceId: workspace.workspaceId,
      apiKey: key.apiKey,
      nodes: started.map((n) => ({ nodeId: n.nodeId, ...n.ports })),
    }
    if (json) process.stdout.write(`${JSON.stringify(out)}\n`)
    else {
      say(`NATS ${out.nats}; workspace ${out.workspaceId}, API key ${out.apiKey}`)
      for (const n of out.nodes) say(`${n.nodeId}: REST http://127.0.0.1:${n.rest}  gateway wss://127.0.0.1:${n.gateway}  MQTT 127.0.0.1:${n.mqtt}`)
      say('running; Ctrl-C stops everything')
    }
    // A node that dies on its own is said, not restarted: the demo shows the others take over.
    for (const n of started) void n.exited.then((how) => {
      if (!stopping) say(`${n.nodeId} exited (${how})`)
    })
  } catch (e) {
    say((e as Error).message)
    await stopAll()
    process.exit(1)
  }
}

void main()
