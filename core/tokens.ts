/**
 * The engine services an extension may receive, one typed token each. An extension class names
 * what it needs in its constructor, `@inject(tokens.terminals) hub: TerminalHub`; a factory asks
 * `resolve(tokens.terminals)`. Its own settings come the same way, through its section's token
 * (`@inject(mqttSettings.token)`). Inside the engine these services are Effect layers; the engine
 * registers each, once built, under its token in its own tsyringe child container.
 */
import type { Registry } from 'prom-client'
import type { AgentDispatcher } from './agentRuntime/dispatcher.js'
import type { ApiRoutes } from './apiRoutes.js'
import type { ClockShape } from './clock.js'
import type { Settings } from './config.js'
import type { GatewayRoutes } from './gatewayRoutes.js'
import { token, type TokenType } from './inject.js'
import type { Leases } from './leases.js'
import type { Logger } from './log.js'
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

export const tokens = {
  /** The engine's own settings (host, dataDir, …); an extension's settings come by its section's token. */
  settings: token<Settings>('hark.settings'),
  log: token<Logger>('hark.log'),
  /** The engine's Prometheus registry. */
  metrics: token<Registry>('hark.metrics'),
  clock: token<ClockShape>('hark.clock'),
  storage: token<StorageShape>('hark.storage'),
  /** Workspaces, API keys, client tokens, device passwords: authenticating terminals. */
  security: token<SecurityShape>('hark.security'),
  presence: token<Presence>('hark.presence'),
  /** Where transports hand over authenticated terminals (TerminalLink in, TerminalSession out). */
  terminals: token<TerminalHub>('hark.terminals'),
  /** Dispatch, stop and list agents. */
  agents: token<AgentDispatcher>('hark.agents'),
  tls: token<TlsMaterial>('hark.tls'),
  /** HTTP and WebSocket routes served on the gateway port by the transport that owns that listener (WebSocket). */
  gatewayRoutes: token<GatewayRoutes>('hark.gatewayRoutes'),
  listeners: token<Listeners>('hark.listeners'),
  /** Resources other plugins add to the REST API, registered inside its scope by the REST plugin. */
  apiRoutes: token<ApiRoutes>('hark.apiRoutes'),
  /** Webhook events: database changes write theirs in their transaction; live events are published here. */
  webhookOutbox: token<WebhookOutbox>('hark.webhookOutbox'),
  /** Leases on named work: all held on a single node; in a cluster, one node at a time (core/leases.ts). */
  leases: token<Leases>('hark.leases'),
} as const

export type EngineTokens = typeof tokens

/** The services behind the tokens, by name. */
export type EngineServiceMap = { readonly [K in keyof EngineTokens]: TokenType<EngineTokens[K]> }
