/**
 * `hark start`: run the engine in the foreground. Every setting has a flag (`--rest-port`),
 * generated from the settings schema; SIGINT/SIGTERM stop it gracefully (exit 0).
 */
import { Option, type Command } from 'commander'
import { createEngine, settingDescriptors } from '../../../core/index.js'
import { settingsFor, withCommon, type CommonOptions } from '../context.js'

/** How long a graceful stop may take before the process gives up on it. */
const STOP_BUDGET_MS = 4500

export const startCommand = (program: Command) => {
  const cmd = withCommon(program.command('start').description('run the engine (REST, gateway, MQTT) in the foreground'))
  const flagToPath = new Map<string, string>()
  for (const d of settingDescriptors) {
    if (d.path === 'dataDir') continue // --data
    const option = new Option(`--${d.flag} <value>`, `${d.path} (env ${d.env}, default ${JSON.stringify(d.defaultValue)})`)
    flagToPath.set(option.attributeName(), d.path)
    cmd.addOption(option)
  }
  cmd.action(async (opts: CommonOptions & Record<string, string>) => {
    const flags: Record<string, string> = {}
    for (const [attribute, path] of flagToPath) if (opts[attribute] !== undefined) flags[path] = opts[attribute]!
    const { source, config, flags: allFlags } = await settingsFor(opts, flags)
    const engine = createEngine(config, { env: process.env, flags: allFlags, configSource: source })
    let stopping = false
    const shutdown = (signal: string) => {
      if (stopping) return
      stopping = true
      const watchdog = setTimeout(() => {
        process.stderr.write(`hark: graceful stop exceeded ${STOP_BUDGET_MS} ms after ${signal}; exiting\n`)
        process.exit(1)
      }, STOP_BUDGET_MS)
      watchdog.unref()
      const began = performance.now()
      process.stderr.write(`hark: ${signal}: stopping\n`)
      engine.stop().then(
        () => {
          process.stderr.write(`hark: stopped in ${Math.round(performance.now() - began)} ms\n`)
          process.exit(0)
        },
        (e: unknown) => {
          process.stderr.write(`hark: stop failed: ${(e as Error).message}\n`)
          process.exit(1)
        },
      )
    }
    process.on('SIGINT', () => shutdown('SIGINT'))
    process.on('SIGTERM', () => shutdown('SIGTERM'))
    await engine.start()
    const ports = Object.entries(engine.ports).map(([k, v]) => `${k}=${v}`).join(' ')
    process.stderr.write(`hark: running on ${engine.settings.host} (${ports}); data in ${engine.settings.dataDir}\n`)
  })
}
