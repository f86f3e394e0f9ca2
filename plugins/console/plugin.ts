/**
 * The console plugin's implementation, imported when an engine starts it (its descriptor is
 * index.ts): the web console served by the engine over HTTPS with the engine's
 * certificate on its own port (`console.port`, bound to `host`; `console.enabled`), where people
 * sign in, create and switch workspaces and, as their role allows, manage clients, rooms, agents,
 * usage, API keys, members and the signing secret. Its API calls the same core operations as the
 * REST API (core/operations), with session and role checks in front (access.ts); spec/console.md.
 * Its settings are its own section (settings.ts); every timer it keeps runs on the engine's clock.
 */
import type { FastifyInstance } from 'fastify'
import type { Registry } from 'prom-client'
import {
  extensionsKey,
  inject,
  injectable,
  ListenError,
  services,
  type EnginePlugin,
  type Listeners,
  type Logger,
  type OperationServices,
  type RegisteredExtensions,
  type Timer,
  type TlsMaterial,
} from '../../core/extension.js'
import { People } from '../../core/people/people.js'
import { LiveFeed } from './live.js'
import { connectLiveSources } from './liveSources.js'
import type { ConsoleRoute } from './server.js'
import type { ConsoleServices } from './services.js'
import { ConsoleSessions } from './sessions.js'
import { consoleSettings, type ConsoleSettings } from './settings.js'
import { SignInThrottle } from './throttle.js'

/** How often expired sessions are removed (on the engine's clock). */
export const SESSION_PRUNE_MS = 10 * 60_000

@injectable()
export class ConsolePlugin implements EnginePlugin {
  readonly services: ConsoleServices
  private app: FastifyInstance | undefined
  private serverRoutes: ConsoleRoute[] = []
  private disconnect = () => {}
  private pruneTimer: Timer | undefined

  constructor(
    @inject(services.operations) operations: OperationServices,
    @inject(consoleSettings.key) console: ConsoleSettings,
    @inject(services.log) log: Logger,
    @inject(services.metrics) metrics: Registry,
    @inject(services.tls) tls: TlsMaterial,
    @inject(services.listeners) listeners: Listeners,
    @inject(extensionsKey) extensions: RegisteredExtensions,
  ) {
    const { storage, security, clock } = operations
    this.services = {
      ...operations, console, log, metrics, tls, listeners, extensions,
      people: new People(storage, security, clock),
      sessions: new ConsoleSessions(storage, clock, console),
      throttle: new SignInThrottle(clock),
      live: new LiveFeed(log),
    }
  }

  /** The API's routes and who may call each (for the role-table test and the spec check). */
  get routes(): ReadonlyArray<ConsoleRoute> {
    return this.serverRoutes
  }

  async start(): Promise<void> {
    const { console: settings, settings: engine, listeners } = this.services
    if (!settings.enabled) return
    // The server (fastify, its static files) loads only when the console starts: CLI commands that read the config never do.
    const { createConsoleServer } = await import('./server.js')
    const server = await createConsoleServer(this.services)
    const app = server.app
    this.serverRoutes = server.routes
    try {
      await app.listen({ host: engine.host, port: settings.port })
    } catch (e) {
      await app.close()
      throw new ListenError('console', engine.host, settings.port, 'console.port', e)
    }
    this.app = app
    const address = app.server.address()
    listeners.listening('console', typeof address === 'object' && address ? address.port : settings.port)
    this.disconnect = connectLiveSources(this.services.live, this.services.terminals, this.services.agents, this.services.storage)
    this.schedulePrune()
  }

  async stop(): Promise<void> {
    this.services.clock.clearTimeout(this.pruneTimer)
    this.disconnect()
    // Open event streams would hold the close: end every connection.
    this.app?.server.closeAllConnections()
    await this.app?.close()
    this.app = undefined
  }

  /** Remove expired sessions every SESSION_PRUNE_MS of the engine's clock. */
  private schedulePrune(): void {
    const { clock, sessions, log } = this.services
    this.pruneTimer = clock.setTimeout(() => {
      try {
        sessions.prune()
      } catch (e) {
        log.error({ err: e }, 'console session prune failed')
      }
      this.schedulePrune()
    }, SESSION_PRUNE_MS)
  }
}
