/**
 * Extensions: how transports, plugins, agent providers and clusters join an engine, and the config that
 * lists them. Each is registered by name in the engine's tsyringe container, built-in ones
 * exactly like an embedder's (see engine.config.ts), and declares its own settings section:
 *
 *   export const lineSettings = defineSettings('line', { port: setting(Port, 7000, 'TCP port') })
 *
 *   @injectable()
 *   class LineTransport implements Transport {
 *     constructor(@inject(lineSettings.key) settings: typeof lineSettings.Type,
 *                 @inject(services.terminals) hub: TerminalHub) {}
 *     …
 *   }
 *
 *   export const lineTransport = defineTransport('line', { settings: lineSettings, create: LineTransport })
 *
 * `create` is an injectable class (every constructor parameter named with `@inject(key)`), or a
 * function given `resolve`, which resolves service keys and builds injectable classes in that container.
 * Without settings, `defineTransport(name, create)` is short for `defineTransport(name, { create })`.
 *
 * An extension whose implementation is heavy (a WebRTC stack, a native module) gives `load`
 * instead of `create`: a function that imports the implementation (`import()`) and returns its
 * create. The descriptor — name, settings, CLI-visible schema — then loads without it, and the
 * engine calls `load` only when it starts (`hark client list` never imports werift):
 *
 *   export const lineTransport = defineTransport('line', {
 *     settings: lineSettings,
 *     load: async () => (await import('./transport.js')).LineTransport,
 *   })
 */
import type { AgentProvider } from './agentProvider.js'
import type { ClusterAdapter } from './cluster/cluster.js'
import type { SectionInput, SettingsInput, SettingsSection, SettingsTree } from './config.js'
import type { Constructor, Resolve } from './inject.js'
import type { EnginePlugin } from './plugin.js'
import type { Transport } from './transport.js'

export type ExtensionKind = 'transport' | 'plugin' | 'agentProvider' | 'cluster'

/** How an extension's instance is made: an injectable class, or a factory given `resolve`. */
export type Create<T> = Constructor<T> | ((resolve: Resolve) => T)

export interface ExtensionSpec<T, P extends string, S extends SettingsTree> {
  /** Its settings, validated with the engine's and given HARK_* variables and flags (config.ts). */
  readonly settings?: SettingsSection<P, S>
  /** Built once per engine start, in the engine's container. Give this or `load`. */
  readonly create?: Create<T>
  /**
   * Instead of `create`: import the implementation (dynamic `import()`) and return its create.
   * Called once, when an engine (or a provider worker, or a CLI command that builds the
   * extension) starts it; a config that only lists the extension never imports it.
   */
  readonly load?: () => Promise<Create<T>>
  /**
   * Agent providers only: run each session in a provider worker thread (true, the default) or in
   * the engine's own thread (false, for providers that must share memory with the engine).
   */
  readonly isolate?: boolean
  /**
   * Agent providers only: the URL of the module that defines this provider (`import.meta.url`),
   * which a provider worker imports to build it. Set by the engine for modules it loads itself
   * (`agents.providerModules`); an isolated provider registered otherwise needs it.
   */
  readonly module?: string
}

/** What a config may say about any extension's settings, when the extensions are not known statically. */
export type AnySettingsInput = { readonly [section: string]: unknown }

export interface Extension<K extends ExtensionKind = ExtensionKind, T = unknown, Input = AnySettingsInput> {
  readonly kind: K
  readonly name: string
  readonly settings: SettingsSection | null
  /** How its instance is made; null when it is loaded on start (`load`). */
  readonly create: Create<T> | null
  /** Imports the implementation and returns its create (ExtensionSpec.load); null when `create` is given. */
  readonly load: (() => Promise<Create<T>>) | null
  /** Agent providers: whether sessions run in a provider worker (see ExtensionSpec.isolate). */
  readonly isolate: boolean
  /** Agent providers: the module a provider worker imports to build it, when known. */
  readonly module: string | null
  /** Type only, never called: what this extension's settings add to a config (see defineConfig). */
  configInput?(input: Input): void
}

/** What a section at `P` of tree `S` adds to a config; nothing without a section. */
// {} rather than unknown: a union with unknown would swallow the other extensions' inputs.
export type SettingsInputOf<P extends string, S extends SettingsTree> = [P] extends [never] ? {} : [S] extends [never] ? {} : SectionInput<P, S>

export type TransportExtension = Extension<'transport', Transport>
export type PluginExtension = Extension<'plugin', EnginePlugin>
export type AgentProviderExtension = Extension<'agentProvider', AgentProvider>
export type ClusterExtension = Extension<'cluster', ClusterAdapter>

const NAME = /^[a-z][a-z0-9-]{0,31}$/

const make =
  <K extends ExtensionKind, Contract>(kind: K) =>
  <T extends Contract, P extends string = never, S extends SettingsTree = never>(
    name: string,
    spec: ExtensionSpec<T, P, S> | Create<T>,
  ): Extension<K, T, SettingsInputOf<P, S>> => {
    if (!NAME.test(name)) throw new Error(`extension name "${name}" must match ${NAME}`)
    const { settings, create, load, isolate, module } = typeof spec === 'function' ? ({ create: spec } as ExtensionSpec<T, P, S>) : spec
    if (create !== undefined && load !== undefined) throw new Error(`extension "${name}" gives both create and load: give one`)
    if (typeof create !== 'function' && typeof load !== 'function') throw new Error(`extension "${name}" needs a create class or function, or a load function`)
    return {
      kind,
      name,
      settings: settings ?? null,
      create: create ?? null,
      load: create === undefined ? load! : null,
      isolate: kind === 'agentProvider' && isolate !== false,
      module: module ?? null,
    }
  }

export const defineTransport = make<'transport', Transport>('transport')
export const definePlugin = make<'plugin', EnginePlugin>('plugin')
/** Register an agent provider; its config schema decides what `ctx.config` holds. */
// any: a provider's Config is its own, and the runtime only hands it configs its own schema decoded.
export const defineAgentProvider = make<'agentProvider', AgentProvider<any>>('agentProvider')
/**
 * Register a cluster implementation (the built-in one: cluster/nats/). The engine asks it to
 * join (`ClusterAdapter.join`) only when `cluster.natsUrl` is set; a single node never does.
 */
export const defineCluster = make<'cluster', ClusterAdapter>('cluster')

/** True when `create` is a class (built by the container) rather than a factory function. */
export const isClass = (create: Create<unknown>): create is Constructor<unknown> =>
  /^class[\s{]/.test(Function.prototype.toString.call(create))

// ---- The engine config: settings plus the extensions to register ----

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never

/** The settings sections the listed extensions add to a config, typed by their declarations. */
export type ExtensionSettingsInput<X extends ReadonlyArray<Extension>> = UnionToIntersection<
  { [I in keyof X]: X[I] extends Extension<ExtensionKind, unknown, infer Input> ? Input : {} }[number]
>

/** What `defineConfig` takes and `createEngine` accepts: settings plus the extensions to register. */
export type EngineConfig<X extends ReadonlyArray<Extension> = ReadonlyArray<Extension>> = SettingsInput &
  ExtensionSettingsInput<X> & {
    /** Transports, plugins, agent providers and clusters, registered by name exactly like the built-in ones. */
    readonly extensions?: X
  }

/** Typed identity: settings of the core and of the listed extensions are checked and completed. */
export const defineConfig = <const X extends ReadonlyArray<Extension> = []>(config: EngineConfig<X>): EngineConfig<X> => config
