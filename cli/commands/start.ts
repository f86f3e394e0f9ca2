/**
 * `hark start`: run the engine in the foreground. Every setting has a flag (`--rest-port`),
 * derived from the settings of the core and of the config's extensions (so a flag exists only
 * once the config is loaded: `hark settings` lists them); SIGINT/SIGTERM stop it gracefully (exit 0).
 * `--nodes N` (N > 1) runs N engines in a cluster behind the same ports instead (../nodes/).
 */
import cluster from 'node:cluster'
import { setFlagsFromString } from 'node:v8'
import type { Command } from 'commander'
import type { AgentProvider } from '../../core/agentProvider.js'
import { SettingsSchema } from '../../core/config.js'
import { CliError, COMMON_SETTINGS, loadConfig, settingsFor, settingsSchemaFor, withCommon, type CommonOptions } from '../context.js'
import type { NodeReady } from '../nodes/messages.js'
import { parseNodeCount } from '../nodes/nodeCount.js'

/** How long a graceful stop may take before the process gives up on it. */
const STOP_BUDGET_MS = 4500

/** `--rest-port 0` and `--rest-port=0` pairs, by setting path; an unknown flag is refused. */
const settingFlags = (args: ReadonlyArray<string>, byFlag: ReadonlyMap<string, string>, skipUnknown = false): Record<string, string> => {
  const flags: Record<string, string> = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (!arg.startsWith('--')) throw new CliError(`unexpected argument '${arg}'`, 2)
    const eq = arg.indexOf('=')
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq)
    const path = byFlag.get(name)
    if (path === undefined && skipUnknown) {
      if (eq < 0) i++
      continue
    }
    if (path === undefined) throw new CliError(`unknown option '--${name}' (hark settings lists every setting's flag)`, 2)
    const value = eq < 0 ? args[++i] : arg.slice(eq + 1)
    if (value === undefined) throw new CliError(`option '--${name} <value>' argument missing`, 2)
    flags[path] = value
  }
  return flags
}

/**
 * V8 option for the engine's process (issue 18, idle memory): no allocation-site pretenuring. V8
 * allocates straight into the old generation from a site whose objects mostly survived a
 * scavenge; in a connect burst that sends objects which live a while and then die there too, and
 * they stay, with the pages they spread over, until a full GC. Measured on 10k idle WSS
 * terminals (README, "Many idle terminals"): the old generation ends the burst ~20 MB smaller.
 * Long-lived objects are copied once more through the young generation instead. An embedder
 * (createEngine in its own process) chooses its own V8 options.
 */
export const ENGINE_V8_FLAGS = '--no-allocation-site-pretenuring'

/** How often `hark start` run by npm looks whether npm (or npm's shell) is still its parent. */
export const LAUNCHER_POLL_MS = 250

/**
 * Run by npm (`npx hark start`, or a script without `exec`), the engine is the child of npm's
 * `sh -c`; npm forwards a SIGTERM to that shell, and dash dies of it without passing it on (it
 * does not exec the last command), which left the engine running with parent PID 1. So, under
 * npm only (npm_lifecycle_event set; `hark start &` by hand stays free to outlive its shell), a
 * parent that goes away stops the engine as a SIGTERM would. Node has no parent-death signal.
 */
const stopWhenLauncherExits = (stop: (reason: string) => void): void => {
  if (process.env.npm_lifecycle_event === undefined) return
  const parent = process.ppid
  const timer = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(timer)
    stop(`its parent (PID ${parent}, run by npm ${process.env.npm_lifecycle_event}) exited`)
  }, LAUNCHER_POLL_MS)
  timer.unref()
}

export const startCommand = (program: Command) => {
  const cmd = withCommon(
    program
      .command('start')
      .description('run the engine (REST, gateway, MQTT) in the foreground; every setting has a flag (see hark settings)')
      .argument('[--<setting> <value>...]', 'settings, e.g. --rest-port 9000 --mqtt-port 0')
      .option('--nodes <n>', 'engine processes on this machine, in a cluster behind the same ports: a number, or auto (one per CPU this process may use)', '1')
      .allowUnknownOption(true),
  )
  cmd.action(async (_settings: string[], opts: CommonOptions & { nodes?: string }) => {
    // A node of `--nodes N` is forked with the command line of its supervisor, minus --nodes.
    const nodes = cluster.isWorker ? 1 : parseNodeCount(opts.nodes)
    setFlagsFromString(ENGINE_V8_FLAGS)
    const { source: configSource, config } = await loadConfig(opts.config)
    // --data, --database-url and --database-token are options of every command (withCommon).
    const common: ReadonlyArray<string> = COMMON_SETTINGS
    const byFlag = (schema: SettingsSchema) => new Map(schema.descriptors.filter((d) => !common.includes(d.path)).map((d) => [d.flag, d.path]))
    // Twice: the flags of provider modules' settings exist once the modules (which may come from
    // --agents-provider-modules itself) are known.
    const known = settingFlags(cmd.args, byFlag(new SettingsSchema(config.extensions ?? [])), true)
    const flags = settingFlags(cmd.args, byFlag(await settingsSchemaFor(config, configSource, known)))
    const { source, config: loaded, flags: allFlags, settings } = await settingsFor(opts, flags)
    if (nodes > 1) {
      const { superviseNodes } = await import('../nodes/supervisor.js')
      // Under npm, npm's going away stops the nodes as a SIGTERM to hark would (each node watches hark).
      stopWhenLauncherExits(() => process.kill(process.pid, 'SIGTERM'))
      return superviseNodes({ count: nodes, settings, argv: process.argv.slice(2), stopBudgetMs: STOP_BUDGET_MS })
    }
    // A node of `--nodes N`: its log lines carry its node id; its UDP sockets are its own.
    const nodeId = cluster.isWorker ? settings.cluster.nodeId : null
    if (nodeId !== null) (await import('../nodes/udp.js')).exclusiveUdpSockets()
    const logger = nodeId === null ? undefined : (await import('../../core/log.js')).createLogger(settings.log.level, undefined, settings.log.format).child({ node: nodeId })
    // /metrics through any node answers for every node (each series labelled with its node).
    const nodeMetrics = nodeId === null ? null : (await import('../nodes/nodeMetrics.js')).nodeMetricsLink(nodeId)
    // The engine's modules load here, not with the CLI: the other commands never need them.
    const { createEngine } = await import('../../core/engine.js')
    const engine = createEngine(loaded, {
      env: process.env,
      flags: allFlags,
      configSource: source,
      ...(logger ? { logger } : {}),
      ...(nodeMetrics ? { scrape: () => nodeMetrics.scrape() } : {}),
    })
    const hark = nodeId === null ? 'hark' : `hark: node ${nodeId}`
    let stopping = false
    const shutdown = (signal: string) => {
      if (stopping) return
      stopping = true
      const watchdog = setTimeout(() => {
        process.stderr.write(`${hark}: graceful stop exceeded ${STOP_BUDGET_MS} ms after ${signal}; exiting\n`)
        process.exit(1)
      }, STOP_BUDGET_MS)
      watchdog.unref()
      const began = performance.now()
      process.stderr.write(`${hark}: ${signal}: stopping\n`)
      engine.stop().then(
        () => {
          process.stderr.write(`${hark}: stopped in ${Math.round(performance.now() - began)} ms\n`)
          process.exit(0)
        },
        (e: unknown) => {
          process.stderr.write(`${hark}: stop failed: ${(e as Error).message}\n`)
          process.exit(1)
        },
      )
    }
    process.on('SIGINT', () => shutdown('SIGINT'))
    process.on('SIGTERM', () => shutdown('SIGTERM'))
    stopWhenLauncherExits(shutdown)
    await engine.start()
    if (nodeId === null) {
      const ports = Object.entries(engine.ports).map(([k, v]) => `${k}=${v}`).join(' ')
      const database = engine.settings.storage.url ? `; database at ${engine.settings.storage.url}` : ''
      process.stderr.write(`hark: running on ${engine.settings.host} (${ports}); data in ${engine.settings.dataDir}${database}\n`)
    } else {
      nodeMetrics?.attach(engine.host.metrics)
      process.stderr.write(`${hark} running (pid ${process.pid})\n`)
      const ready: NodeReady = { kind: 'ready', nodeId, pid: process.pid, ports: { ...engine.ports } }
      process.send!(ready)
    }
    // What each agent provider found on this machine (the local provider: pocketsphinx, flite); with
    // --nodes, said once, by the first node (the machine is the same for all).
    if (nodeId !== null && process.env.HARK_NODE_SLOT !== '1') return
    for (const { name } of engine.host.agents.providers()) {
      const check = engine.host.resolve<AgentProvider>('agentProvider', name).hostCheck?.()
      if (check) process.stderr.write(`hark: agent provider ${name}: ${check.summary}\n`)
    }
  })
}
