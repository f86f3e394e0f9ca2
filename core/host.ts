/**
 * What an embedder (and a test) holding a running Engine can reach: the same services extensions
 * receive by injection, resolved from the engine's container under the same service keys, plus the
 * registered extensions by kind and name. Extensions never receive this object: they name each
 * service they need with `@inject(key)` (core/README.md).
 */
import type { ExtensionKind } from './define.js'
import type { EngineServiceMap } from './services.js'

export interface EngineHost extends EngineServiceMap {
  /** A registered extension's instance by kind and name (e.g. the REST plugin). */
  resolve<T>(kind: ExtensionKind, name: string): T
  /** Names registered for a kind. */
  names(kind: ExtensionKind): ReadonlyArray<string>
}
