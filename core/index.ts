/**
 * Hark's public API for embedders and extension authors: create an engine, define its config,
 * and write transports, plugins and agent providers against the same contracts, services and
 * helpers the built-in ones use (spec/extensions.md). Nothing an extension needs lives behind
 * another path: `import { … } from 'hark'`.
 */
export { createEngine, runThrowing, type Engine, type EngineOptions, type EngineState } from './engine.js'
export {
  defineSettings,
  setting,
  intBetween,
  Port,
  resolveSettings,
  sectionOf,
  ConfigError,
  Setting,
  SettingsSchema,
  coreSettings,
  type Settings,
  type SettingsInput,
  type SettingsOf,
  type SettingsSection,
  type SettingsTree,
  type SettingDescriptor,
  type SettingsLayers,
} from './config.js'
export {
  defineConfig,
  defineTransport,
  definePlugin,
  defineAgentProvider,
  type EngineConfig,
  type Extension,
  type ExtensionKind,
  type ExtensionSpec,
  type Create,
} from './extension.js'
export { inject, injectable, token, type Token, type TokenType, type Resolve, type Constructor } from './inject.js'
export { tokens, type Listeners, type EngineServiceMap } from './tokens.js'
export { ApiRoutes, type ApiResource } from './apiRoutes.js'
export type { WebhookOutbox } from './webhooks/outbox.js'
export type { Leases } from './leases.js'
export type { EngineHost } from './host.js'
export { extensionsToken, type RegisteredExtensions } from './registry.js'
export { ListenError, type Transport } from './transport.js'
export type { EnginePlugin } from './plugin.js'
export * from './agentProvider.js'

// ---- What a transport builds on (spec/extensions.md) ----
export type { TerminalHub } from './terminals.js'
export type { RoomView, WorkspaceEmitted, WorkspaceAnnouncement } from './actors/workspace.js'
export type { TerminalLink, TerminalSession, OpenOptions, SessionInfo } from './session.js'
export { TerminalInput, PROTOCOL_LIMITS, type InputLimits, type TerminalInputOptions, type ControlRefusal, type EventSink } from './terminalInput.js'
export { parseClientMessage, answerClientMessage, type ClientMessageResult } from './clientMessages.js'
export * from './dataplane/frame.js'
export { WriteBatch, type Flushable } from './dataplane/writeBatch.js'
export type { FanoutHub, FanoutReceiver } from './dataplane/fanout.js'
export { audioDrops, AudioDrops, type DropCell, type DropReason } from './dataplane/drops.js'
export { TokenBucket } from './tokenBucket.js'
export { clockedRateLimitStore, RATE_WINDOW_KEYS } from './rateWindows.js'
export * from './events.js'
export * from './errors.js'
export { randomBase62 } from './ids.js'
export type { TerminalIdentity, TerminalCredential, SecurityShape } from './security/security.js'
export { parseBearer } from './security/bearer.js'
export type { StorageShape } from './storage/storage.js'
export type { ChangeFeed } from './storage/changeFeed.js'
export type { Change, ChangeAuthor, ChangeKind, ChangeOf, NewChange } from './storage/changes.js'
export type { TlsMaterial } from './tls.js'
export type { Logger } from './log.js'
export type { Presence, PresenceEntry } from './presence.js'
export type { AgentDispatcher, AgentLifecycleEvent } from './agentRuntime/dispatcher.js'
export type { AgentReason, AgentRequest, PolicyWant, RoomAgentPolicy, RoomAgentsView } from './actors/roomAgents.js'
export type { RoomRoster } from './actors/room.js'
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
export { ManualClock, systemClock, type ClockShape, type Timer } from './clock.js'
export * as errors from './errors.js'
export { scrubSecrets } from './agentRuntime/redact.js'
