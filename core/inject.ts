/**
 * Typed service keys over tsyringe (its "injection tokens"), the one way an extension receives
 * engine services (core/README.md). A key is a symbol that carries the type of what it resolves
 * to; an extension class names each constructor parameter's key with `@inject(key)` and is marked
 * `@injectable()`. Nothing relies on decorator metadata (`emitDecoratorMetadata` is off: esbuild,
 * tsx and vite emit none), so a parameter without `@inject` is refused when the class is built.
 */
import 'reflect-metadata' // tsyringe reads its parameter tokens through the Reflect metadata API
import { inject as tsyringeInject, injectable } from 'tsyringe'

declare const resolvesTo: unique symbol

/** A service key: a symbol that resolves to a `T`. */
export type ServiceKey<T> = symbol & { readonly [resolvesTo]?: T }

/** What a service key resolves to. */
export type ServiceOf<K> = K extends ServiceKey<infer T> ? T : never

/** A class whose instances the container can build (its parameters named with `@inject`). */
export type Constructor<T> = new (...args: never[]) => T

/** Resolve a service key, or build an injectable class, in the engine's container. */
export type Resolve = <T>(what: ServiceKey<T> | Constructor<T>) => T

/** A new service key; `description` names it in errors ("hark.log"). */
export const serviceKey = <T>(description: string): ServiceKey<T> => Symbol(description) as ServiceKey<T>

/** Parameter decorator: this constructor parameter receives what `key` resolves to. */
export const inject = (key: ServiceKey<unknown>): ((target: object, name: string | symbol | undefined, index: number) => void) =>
  tsyringeInject(key)

export { injectable }
