/**
 * Hark's public API for embedders: create an engine, define its config, and write transports,
 * plugins and agent providers against the same contracts the built-in ones use.
 */
export { createEngine, runThrowing, type Engine, type EngineOptions, type EngineState } from './engine.js'
export {
  defineConfig,
  defaultSettings,
  resolveSettings,
  settingDescriptors,
  ConfigError,
  type EngineConfig,
  type Settings,
  type SettingsInput,
} from './config.js'
export { defineTransport, definePlugin, defineAgentProvider, type Extension } from './extension.js'
export { ListenError, type Transport } from './transport.js'
export type { EnginePlugin } from './plugin.js'
export type { AgentProvider } from './agentProvider.js'
export type { EngineHost } from './host.js'
export {
  GatewayRoutes,
  DEFAULT_MAX_BODY_BYTES,
  errorResponse,
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
export { ManualClock, systemClock, type ClockShape } from './clock.js'
export * as errors from './errors.js'
export { scrubSecrets } from './agents/redact.js'
