/**
 * What an embedder (and a test) holding a running Engine can reach: the same services extensions
 * receive by injection, resolved from the engine's container under the same tokens, plus the
 * registered extensions by kind and name. Extensions never receive this object: they name each
 * service they need with `@inject(token)` (core/README.md).
 */
import type { ExtensionKind } from './extension.js'
import type { EngineServiceMap } from './tokens.js'

export interface EngineHost extends EngineServiceMap {
  /** A registered extension's instance by kind and name (e.g. the REST plugin). */
  resolve<T>(kind: ExtensionKind, name: string): T
  /** Names registered for a kind. */
  names(kind: ExtensionKind): ReadonlyArray<string>
}
