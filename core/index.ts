/**
 * Hark's public API, 'hark': create an engine and define its config, and write transports,
 * plugins and agent providers against the contracts, services and helpers the built-in ones use
 * (spec/extensions.md). It is `hark/extension` (which includes `hark/provider`) and what an
 * embedder adds: `createEngine`, settings resolution, the embedder's view of the services,
 * `ManualClock`. Importing it loads the whole engine; a descriptor or a config imports
 * `hark/extension` instead (core/README.md, What an extension may import).
 */
export * from './extension.js'
export { createEngine, runThrowing, type Engine, type EngineOptions, type EngineState } from './engine.js'
export {
  resolveSettings,
  sectionOf,
  SettingsSchema,
  coreSettings,
  type SettingsInput,
  type SettingDescriptor,
  type SettingsLayers,
} from './config.js'
export type { EngineHost } from './host.js'
export { ManualClock } from './clock.js'
