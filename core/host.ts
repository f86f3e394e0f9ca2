/**
 * The host facade an extension receives: settings, logging, metrics, storage, the security
 * domain, presence, TLS, and a way to run Effect programs on the engine's runtime. Adapters
 * depend on this interface only, never on each other.
 */
import type { Effect } from 'effect'
import type { Registry } from 'prom-client'
import type { ClockShape } from './clock.js'
import type { Settings } from './config.js'
import type { GatewayRoutes } from './gatewayRoutes.js'
import type { Logger } from './log.js'
import type { Presence } from './presence.js'
import type { SecurityShape } from './security/security.js'
import type { StorageShape } from './storage/storage.js'
import type { TlsMaterial } from './tls.js'
import type { TerminalHub } from './terminals.js'
import type { EngineServices } from './services.js'
import type { AgentDispatcher } from './agents/dispatcher.js'

export interface EngineHost {
  readonly settings: Settings
  readonly log: Logger
  readonly metrics: Registry
  readonly clock: ClockShape
  readonly storage: StorageShape
  readonly security: SecurityShape
  readonly presence: Presence
  /** Where transports hand over authenticated terminals, and agents join rooms. */
  readonly terminals: TerminalHub
  /** Dispatch, stop and list agents (providers resolved by name from the registry). */
  readonly agents: AgentDispatcher
  readonly tls: TlsMaterial
  /**
   * HTTP routes served on the gateway port by whichever transport owns that listener (the
   * WebSocket gateway): add routes here in create() or start(); they are looked up per request.
   */
  readonly gatewayRoutes: GatewayRoutes
  /** Run an Effect on the engine runtime; a typed failure is thrown as the error itself. */
  run<A, E>(effect: Effect.Effect<A, E, EngineServices>): Promise<A>
  /** A transport or plugin reports a bound listener (its real port when configured with 0). */
  listening(name: string, port: number): void
  /** Ports reported so far by listener name (the console tells browsers the gateway's). */
  readonly ports: Readonly<Record<string, number>>
  /** Resolve another registered extension's instance by kind and name (e.g. an agent provider). */
  resolve<T>(kind: 'transport' | 'plugin' | 'agentProvider', name: string): T
  /** Names registered for a kind. */
  names(kind: 'transport' | 'plugin' | 'agentProvider'): ReadonlyArray<string>
}
