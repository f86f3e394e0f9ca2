/**
 * `hark/extension`: the entry transports and plugins are written against. Everything an
 * extension needs — `define*` and `defineConfig`, settings sections, the engine services by key
 * (`services`), the contracts (`Transport`, `EnginePlugin`, `AgentProvider`), the transport
 * building blocks (`TerminalInput`, frame layouts, `WriteBatch`, drop cells), gateway and REST
 * routes, the errors and their codes, the protocol's events — and nothing of the engine: no
 * `createEngine`, storage (libSQL), HTTP server (fastify), actors or transports. A config file or
 * a descriptor that imports it costs no engine (`hark client list` never loads one: the CLI's
 * startup test traces it). It includes all of `hark/provider`.
 *
 * 'hark' exports every name here, unchanged, and what an embedder adds (`createEngine`, settings
 * resolution, `ManualClock`). The built-in transports import only this entry; inside the
 * repository they name it by path (`core/extension.js`), an outsider as 'hark/extension'
 * (test/imports.test.ts checks the first, test/fixtures/line-transport the second).
 */
export * from './provider.js'
export {
  defineConfig,
  defineTransport,
  definePlugin,
  type EngineConfig,
  type TransportExtension,
  type PluginExtension,
  type AgentProviderExtension,
  defineCluster,
  type ClusterExtension,
} from './define.js'
export type { Settings } from './config.js'
export { services, type Listeners, type EngineServiceMap, type ServiceKeys } from './services.js'
export { extensionsKey, type RegisteredExtensions } from './registry.js'
export { ListenError, type Transport } from './transport.js'
export type { ClusterAdapter, ClusterAgentHooks, ClusterNode, ClusterOptions } from './cluster/cluster.js'
export type { EnginePlugin } from './plugin.js'

// ---- Engine services' types (by key: services.ts) ----
export type { TerminalHub } from './terminals.js'
export type { RoomView, WorkspaceEmitted, WorkspaceAnnouncement } from './actors/workspace.js'
export type { TerminalLink, TerminalSession, OpenOptions, SessionInfo } from './session.js'
export type { TerminalIdentity, TerminalCredential, SecurityShape } from './security/security.js'
export type { StorageShape } from './storage/storage.js'
export type { ChangeFeed } from './storage/changeFeed.js'
export type { Change, ChangeAuthor, ChangeKind, ChangeOf, NewChange } from './storage/changes.js'
export type { TlsMaterial } from './tls.js'
export type { Presence, PresenceEntry } from './presence.js'
export type { AgentDispatcher, AgentLifecycleEvent } from './agentRuntime/dispatcher.js'
export type { AgentReason, AgentRequest, PolicyJoin, PolicyWant, RoomAgentPolicy, RoomAgentsView } from './actors/roomAgents.js'
export type { RoomRoster } from './actors/room.js'
export type { OperationServices } from './operations/services.js'
export type { WebhookOutbox } from './webhooks/outbox.js'
export type { Leases } from './leases.js'

// ---- What a transport builds on (spec/extensions.md, The transport contract) ----
export { TerminalInput, PROTOCOL_LIMITS, type InputLimits, type TerminalInputOptions, type ControlRefusal, type EventSink } from './terminalInput.js'
export { parseClientMessage, answerClientMessage, type ClientMessageResult } from './clientMessages.js'
export * from './dataplane/frame.js'
export { WriteBatch, type Flushable } from './dataplane/writeBatch.js'
export type { FanoutHub, FanoutReceiver } from './dataplane/fanout.js'
export { audioDrops, AudioDrops, type DropCell, type DropReason } from './dataplane/drops.js'
export { overloadInput, overloadGuard, OverloadGuard, DEFAULT_OVERLOAD, type OverloadOptions, type OverloadState, type OverloadListener, type ShedSource } from './dataplane/overload.js'
export { TokenBucket } from './tokenBucket.js'
export { clockedRateLimitStore, RATE_WINDOW_KEYS } from './rateWindows.js'
export { randomBase62 } from './ids.js'
export { parseBearer } from './security/bearer.js'
export * from './events.js'
export * from './errors.js'
export * as errors from './errors.js'

// ---- Routes on the engine's ports (spec/extensions.md, Gateway routes; REST resources) ----
export {
  GatewayRoutes,
  DEFAULT_MAX_BODY_BYTES,
  errorResponse,
  failureResponse,
  statusLine,
  jsonResponse,
  type GatewayMethod,
  type GatewayRequest,
  type GatewayResponse,
  type GatewayRoute,
  type GatewayRouteMatch,
  type GatewaySocket,
  type GatewaySocketHandler,
  type GatewaySocketRoute,
  type GatewayUpgrade,
} from './gatewayRoutes.js'
export { ApiRoutes, type ApiResource, type ApiScope, type ApiCaller, type ApiErrorStatus } from './apiRoutes.js'
