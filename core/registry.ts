/**
 * The extension registry: a tsyringe child container per engine (never the global one). The
 * engine's services are registered under their keys (services.ts), each extension's settings
 * section under its own key, and every transport, plugin and agent provider under
 * "<kind>:<name>" as a singleton built on first resolve — built-in and embedder extensions alike.
 * An extension defined with `load` is imported by `load()`, which whoever starts the extensions
 * awaits before resolving them (the engine at start, a provider worker, a CLI command).
 */
import 'reflect-metadata' // before tsyringe, which needs the Reflect metadata API
import { container as rootContainer, instanceCachingFactory, type DependencyContainer } from 'tsyringe'
import { sectionOf, type Settings } from './config.js'
import { isClass, type Create, type Extension, type ExtensionKind } from './define.js'
import { serviceKey, type Resolve, type ServiceKey } from './inject.js'
import { services, type EngineServiceMap } from './services.js'

/** The engine's registered extensions, for an extension that uses another one when it is there. */
export interface RegisteredExtensions {
  /** A registered extension's instance (built once per engine); throws when none has that name. */
  resolve<T>(kind: ExtensionKind, name: string): T
  names(kind: ExtensionKind): ReadonlyArray<string>
}

/**
 * Resolves to the engine's RegisteredExtensions (e.g. the console reaches the webhooks plugin's
 * endpoints service through it, when that plugin is registered).
 */
export const extensionsKey = serviceKey<RegisteredExtensions>('hark.extensions')

export class ExtensionRegistry {
  private readonly container: DependencyContainer = rootContainer.createChildContainer()
  private readonly registered: Record<ExtensionKind, string[]> = { transport: [], plugin: [], agentProvider: [], cluster: [] }
  /** Extensions defined with `load`, by "<kind>:<name>": what their load returned, once `load()` ran. */
  private readonly lazy = new Map<string, { readonly ext: Extension; create: Create<unknown> | null }>()
  /** Resolve a service key or build an injectable class in this engine's container. */
  readonly resolveKey: Resolve = (what) => this.container.resolve(what as ServiceKey<never>)

  /**
   * `provided` are the engine services available here: all of them inside an engine, fewer for
   * the CLI, which builds agent providers only to read their config schemas.
   */
  constructor(provided: Partial<EngineServiceMap> & { readonly settings: Settings }, extensions: ReadonlyArray<Extension>) {
    for (const [name, value] of Object.entries(provided)) {
      this.container.register(services[name as keyof EngineServiceMap], { useValue: value })
    }
    const registered: RegisteredExtensions = { resolve: (kind, name) => this.resolve(kind, name), names: (kind) => this.names(kind) }
    this.container.register(extensionsKey, { useValue: registered })
    for (const ext of extensions) this.register(ext, provided.settings)
  }

  private register(ext: Extension, settings: Settings): void {
    const names = this.registered[ext.kind]
    if (names.includes(ext.name)) throw new Error(`a ${ext.kind} named "${ext.name}" is already registered`)
    names.push(ext.name)
    if (ext.settings) this.container.register(ext.settings.key, { useValue: sectionOf(settings, ext.settings) })
    const key = `${ext.kind}:${ext.name}`
    const entry = ext.create === null ? { ext, create: null as Create<unknown> | null } : null
    if (entry) this.lazy.set(key, entry)
    this.container.register(key, {
      useFactory: instanceCachingFactory((c) => {
        const create = entry ? entry.create : ext.create
        if (create === null) throw new Error(`the ${ext.kind} ${ext.name} is not loaded yet: await the registry's load() before resolving it`)
        return isClass(create) ? c.resolve(create) : create(this.resolveKey)
      }),
    })
  }

  /**
   * Import the implementation of every extension defined with `load` (once; concurrently). A load
   * that fails rejects with the extension named.
   */
  async load(): Promise<void> {
    await Promise.all(
      [...this.lazy.values()]
        .filter((entry) => entry.create === null)
        .map(async (entry) => {
          let create: unknown
          try {
            create = await entry.ext.load!()
          } catch (e) {
            throw new Error(`the ${entry.ext.kind} ${entry.ext.name} could not be loaded: ${(e as Error).message ?? String(e)}`, { cause: e })
          }
          if (typeof create !== 'function') throw new Error(`the ${entry.ext.kind} ${entry.ext.name}: load() must return a create class or function`)
          entry.create = create as Create<unknown>
        }),
    )
  }

  names(kind: ExtensionKind): ReadonlyArray<string> {
    return this.registered[kind]
  }

  resolve<T>(kind: ExtensionKind, name: string): T {
    if (!this.registered[kind].includes(name)) throw new Error(`no ${kind} named "${name}" is registered`)
    return this.container.resolve<T>(`${kind}:${name}`)
  }
}
