/**
 * The console plugin: the web console served by the engine over HTTPS with the engine's
 * certificate on its own port (`console.port`, bound to `host`; `console.enabled`), where people
 * sign in, create and switch workspaces and, as their role allows, manage clients, rooms, agents,
 * usage, API keys, members and the signing secret. Its API calls the same core operations as the
 * REST API (core/operations), with session and role checks in front (access.ts); spec/console.md.
 */
import type { FastifyInstance } from 'fastify'
import { definePlugin } from '../../core/extension.js'
import type { EngineHost } from '../../core/host.js'
import type { EnginePlugin } from '../../core/plugin.js'
import { People } from '../../core/people/people.js'
import { verifyDecoy } from '../../core/people/passwords.js'
import { ListenError } from '../../core/transport.js'
import { LiveFeed } from './live.js'
import { connectLiveSources } from './liveSources.js'
import { createConsoleServer, type ConsoleRoute } from './server.js'
import type { ConsoleServices } from './services.js'
import { ConsoleSessions } from './sessions.js'
import { SignInThrottle } from './throttle.js'

/** How often expired sessions are removed (on the engine's clock). */
export const SESSION_PRUNE_MS = 10 * 60_000

export interface ConsolePlugin extends EnginePlugin {
  /** The API's routes and who may call each (for the role-table test and the spec check). */
  readonly routes: ReadonlyArray<ConsoleRoute>
  readonly services: ConsoleServices
}

export const consolePlugin = definePlugin('console', (host: EngineHost) => {
  const settings = host.settings.console
  const live = new LiveFeed(host.log)
  const services: ConsoleServices = {
    settings: host.settings,
    console: settings,
    clock: host.clock,
    storage: host.storage,
    security: host.security,
    presence: host.presence,
    terminals: host.terminals,
    agents: host.agents,
    log: host.log,
    metrics: host.metrics,
    tls: host.tls,
    people: new People(host.storage, host.security, host.clock),
    sessions: new ConsoleSessions(host.storage, host.clock, settings),
    throttle: new SignInThrottle(host.clock),
    live,
    ports: host.ports,
  }
  let app: FastifyInstance | undefined
  let routes: ConsoleRoute[] = []
  let disconnect = () => {}
  let prune: NodeJS.Timeout | undefined
  const plugin: ConsolePlugin = {
    get routes() {
      return routes
    },
    services,
    start: async () => {
      if (!settings.enabled) return
      // The decoy hash a sign-in with an unknown email verifies against, made before the first one.
      await verifyDecoy('')
      const server = await createConsoleServer(services)
      app = server.app
      routes = server.routes
      try {
        await app.listen({ host: host.settings.host, port: settings.port })
      } catch (e) {
        await app.close()
        app = undefined
        throw new ListenError('console', host.settings.host, settings.port, 'console.port', e)
      }
      const address = app.server.address()
      host.listening('console', typeof address === 'object' && address ? address.port : settings.port)
      disconnect = connectLiveSources(live, host.terminals, host.storage)
      prune = setInterval(() => {
        try {
          services.sessions.prune()
        } catch (e) {
          host.log.error({ err: e }, 'console session prune failed')
        }
      }, SESSION_PRUNE_MS)
      prune.unref()
    },
    stop: async () => {
      clearInterval(prune)
      disconnect()
      // Open event streams would hold the close: end every connection.
      app?.server.closeAllConnections()
      await app?.close()
      app = undefined
    },
  }
  return plugin
})
