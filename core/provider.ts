/**
 * `hark/provider`: the light entry for agent providers. Everything a provider module needs —
 * `defineAgentProvider`, the provider contract and context types, its settings section, the
 * service keys it may inject (settings, log, clock, metrics), the audio helpers (levels, the
 * resampler, what the room heard of a reply) — and nothing of the engine: no storage (libSQL), no
 * HTTP server (fastify), no transports, no actors.
 *
 * A provider worker imports a provider's module and what that module imports; from this entry a
 * worker costs a few MB, from 'hark' (the whole engine) about 60 MB more (spec/agents.md). The
 * built-in providers and the worker's own bootstrap import only what this module does; a test
 * (agents/isolation.test.ts) checks that a worker never loads the engine's modules.
 *
 * Every name here is also exported by 'hark/extension' and by 'hark', unchanged: a module may use
 * any of the three entries (core/README.md, What an extension may import).
 */
export * from './agentProvider.js'
export {
  defineAgentProvider,
  type Extension,
  type ExtensionKind,
  type ExtensionSpec,
  type Create,
} from './define.js'
export {
  defineSettings,
  setting,
  intBetween,
  Port,
  ConfigError,
  Setting,
  type SettingsOf,
  type SettingsSection,
  type SettingsTree,
} from './config.js'
export { inject, injectable, serviceKey, type ServiceKey, type ServiceOf, type Resolve, type Constructor } from './inject.js'
export { services } from './services.js'
export { systemClock, type ClockShape, type Timer } from './clock.js'
export type { Logger } from './log.js'
export type { ParticipantInfo, ServerEvent, ServerEventType, AudioMode } from './events.js'
export { scrubSecrets } from './agentRuntime/redact.js'

// ---- Audio helpers (16 kHz mono PCM; the frame constants are in agentProvider.ts) ----
export { levelByteFromPcm, levelOf, voiceFlag, LEVEL_SILENT } from './dataplane/frame.js'
export { PcmResampler, pcmToBase64, base64ToPcm } from './agentRuntime/resampler.js'
export { heardOfSpoken, heardText, whenPlayed } from './agentRuntime/heard.js'
export { SpeechSegmenter, VAD_RATE, type VadOptions, type VadListener, type UtteranceStream } from './agentRuntime/vad.js'

// ---- Tools for model-backed providers (spec/agents.md, "Tools") ----
export { ToolRunner, ERROR_PREFIX, EVENT_RESULT_CHARS, type ModelFunction, type ToolOutcome } from './agentRuntime/toolRunner.js'
export { toolConfigFields, toolAllowed, ToolPermissionsSchema, TOOL_SOURCES, type ToolConfig, type ToolPermissions, type ToolBounds, type ToolSource } from './agentRuntime/toolConfig.js'
