/**
 * An engine host for the CLI, which runs beside (not inside) an engine: real settings, storage,
 * security and clock, a silent logger, and nothing that needs a running engine (the hub, agents,
 * listeners) — touching those throws. The CLI uses it to instantiate agent providers just to
 * read their config schemas (a provider's factory must not connect anywhere; its `start` does).
 */
import { Registry } from 'prom-client'
import type { EngineHost } from '../../core/host.js'
import { createLogger } from '../../core/log.js'
import { Presence } from '../../core/presence.js'
import { systemClock } from '../../core/clock.js'
import type { Operator } from './context.js'
import { CliError } from './context.js'

const unavailable = (what: string): never => {
  throw new CliError(`${what} is only available inside a running engine`)
}

export const offlineHost = (op: Operator): EngineHost => ({
  settings: op.settings,
  log: createLogger('silent'),
  metrics: new Registry(),
  clock: systemClock,
  storage: op.storage,
  security: op.security,
  presence: new Presence(),
  get terminals() {
    return unavailable('the terminal hub')
  },
  get agents() {
    return unavailable('the agent dispatcher')
  },
  get tls() {
    return unavailable('TLS material')
  },
  get gatewayRoutes() {
    return unavailable('the gateway routes')
  },
  run: () => unavailable('the engine runtime'),
  listening: () => unavailable('listening'),
  ports: {},
  resolve: () => unavailable('resolving extensions'),
  names: () => unavailable('listing extensions'),
})
