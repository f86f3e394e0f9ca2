/**
 * Extensions: how transports, plugins and agent providers join an engine. Each is registered
 * by name in the engine's tsyringe container; the built-in ones are registered exactly like an
 * embedder's (see engine.config.ts).
 */
import type { AgentProvider } from './agentProvider.js'
import type { EngineHost } from './host.js'
import type { EnginePlugin } from './plugin.js'
import type { Transport } from './transport.js'

export type ExtensionKind = 'transport' | 'plugin' | 'agentProvider'

interface ExtensionOf<K extends ExtensionKind, T> {
  readonly kind: K
  readonly name: string
  /** Called once per engine start with the engine's host facade. */
  readonly create: (host: EngineHost) => T
}

export type TransportExtension = ExtensionOf<'transport', Transport>
export type PluginExtension = ExtensionOf<'plugin', EnginePlugin>
export type AgentProviderExtension = ExtensionOf<'agentProvider', AgentProvider>
export type Extension = TransportExtension | PluginExtension | AgentProviderExtension

const NAME = /^[a-z][a-z0-9-]{0,31}$/

const make =
  <K extends ExtensionKind>(kind: K) =>
  <T>(name: string, create: (host: EngineHost) => T): ExtensionOf<K, T> => {
    if (!NAME.test(name)) throw new Error(`extension name "${name}" must match ${NAME}`)
    return { kind, name, create }
  }

export const defineTransport: (name: string, create: (host: EngineHost) => Transport) => TransportExtension =
  make('transport')
export const definePlugin: (name: string, create: (host: EngineHost) => EnginePlugin) => PluginExtension =
  make('plugin')
/** Register an agent provider; `Config` is what its config schema decodes to. */
export const defineAgentProvider = <Config>(
  name: string,
  create: (host: EngineHost) => AgentProvider<Config>,
): AgentProviderExtension =>
  // The runtime only hands a provider configs its own schema decoded, so erasing Config is sound.
  make('agentProvider')(name, create as unknown as (host: EngineHost) => AgentProvider)
