/**
 * The extension registry: a tsyringe child container per engine. Every transport, plugin and
 * agent provider is registered under "<kind>:<name>" as a singleton factory of the engine host,
 * built-in and embedder extensions alike.
 */
import 'reflect-metadata'
import { container as rootContainer, instanceCachingFactory, type DependencyContainer } from 'tsyringe'
import type { Extension, ExtensionKind } from './extension.js'
import type { EngineHost } from './host.js'

export const HOST_TOKEN = 'hark:host'

export class ExtensionRegistry {
  readonly container: DependencyContainer = rootContainer.createChildContainer()
  private readonly registered: Record<ExtensionKind, string[]> = { transport: [], plugin: [], agentProvider: [] }

  constructor(host: EngineHost, extensions: ReadonlyArray<Extension>) {
    this.container.register(HOST_TOKEN, { useValue: host })
    for (const ext of extensions) this.register(ext)
  }

  private register(ext: Extension): void {
    const names = this.registered[ext.kind]
    if (names.includes(ext.name)) throw new Error(`a ${ext.kind} named "${ext.name}" is already registered`)
    names.push(ext.name)
    this.container.register(`${ext.kind}:${ext.name}`, {
      useFactory: instanceCachingFactory((c) => ext.create(c.resolve<EngineHost>(HOST_TOKEN))),
    })
  }

  names(kind: ExtensionKind): ReadonlyArray<string> {
    return this.registered[kind]
  }

  resolve<T>(kind: ExtensionKind, name: string): T {
    if (!this.registered[kind].includes(name)) throw new Error(`no ${kind} named "${name}" is registered`)
    return this.container.resolve<T>(`${kind}:${name}`)
  }
}
