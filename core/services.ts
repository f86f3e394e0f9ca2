/**
 * The engine services an extension may receive, one typed service key each. An extension class
 * names what it needs in its constructor, `@inject(services.terminals) hub: TerminalHub`; a
 * factory asks `resolve(services.terminals)`. Its own settings come the same way, through its
 * section's key (`@inject(mqttSettings.key)`). Inside the engine these services are Effect layers;
 * the engine registers each, once built, under its key in its own tsyringe child container.
 * ("Token" in Hark means a client's credential, a JWT; a key here is never one.)
 */
import type { Registry } from 'prom-client'
import type { AgentDispatcher } from './agentRuntime/dispatcher.js'
import type { ApiRoutes } from './apiRoutes.js'
import type { ClockShape } from './clock.js'
import type { Settings } from './config.js'
import type { GatewayRoutes } from './gatewayRoutes.js'
import { serviceKey, type ServiceOf } from './inject.js'
import type { Leases } from './leases.js'
import type { Logger } from './log.js'
import type { OperationServices } from './operations/services.js'
import type { Presence } from './presence.js'
import type { SecurityShape } from './security/security.js'
import type { StorageShape } from './storage/storage.js'
import type { TerminalHub } from './terminals.js'
import type { TlsMaterial } from './tls.js'
import type { WebhookOutbox } from './webhooks/outbox.js'

/** Where a transport or plugin reports a bound listener (its real port when configured with 0). */
export interface Listeners {
  listening(name: string, port: number): void
  /** The port a listener reported ("rest", "gateway", …), or null while it is not listening. */
  port(name: string): number | null
}

export const services = {
  /** The engine's own settings (host, dataDir, …); an extension's settings come by its section's key. */
  settings: serviceKey<Settings>('hark.settings'),
  log: serviceKey<Logger>('hark.log'),
  /** The engine's Prometheus registry. */
  metrics: serviceKey<Registry>('hark.metrics'),
  clock: serviceKey<ClockShape>('hark.clock'),
  storage: serviceKey<StorageShape>('hark.storage'),
  /** Workspaces, API keys, client tokens, device passwords: authenticating terminals. */
  security: serviceKey<SecurityShape>('hark.security'),
  presence: serviceKey<Presence>('hark.presence'),
  /** Where transports hand over authenticated terminals (TerminalLink in, TerminalSession out). */
  terminals: serviceKey<TerminalHub>('hark.terminals'),
  /** Dispatch, stop and list agents. */
  agents: serviceKey<AgentDispatcher>('hark.agents'),
  /**
   * What the workspace operations (core/operations: clients, tokens, rooms, credentials) are
   * given — settings, clock, storage, security, presence, terminals, agents — as one object: the
   * REST API and the console inject this one key.
   */
  operations: serviceKey<OperationServices>('hark.operations'),
  tls: serviceKey<TlsMaterial>('hark.tls'),
  /** HTTP and WebSocket routes served on the gateway port by the transport that owns that listener (WebSocket). */
  gatewayRoutes: serviceKey<GatewayRoutes>('hark.gatewayRoutes'),
  listeners: serviceKey<Listeners>('hark.listeners'),
  /** Resources other plugins add to the REST API, registered inside its scope by the REST plugin. */
  apiRoutes: serviceKey<ApiRoutes>('hark.apiRoutes'),
  /** Webhook events: database changes write theirs in their transaction; live events are published here. */
  webhookOutbox: serviceKey<WebhookOutbox>('hark.webhookOutbox'),
  /** Leases on named work: all held on a single node; in a cluster, one node at a time (core/leases.ts). */
  leases: serviceKey<Leases>('hark.leases'),
} as const

export type ServiceKeys = typeof services

/** The services behind the keys, by name. */
export type EngineServiceMap = { readonly [K in keyof ServiceKeys]: ServiceOf<ServiceKeys[K]> }
