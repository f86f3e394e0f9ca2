/**
 * Typed injection tokens over tsyringe, the one way an extension receives engine services
 * (core/README.md). A token is a symbol that carries the type of what it resolves to; an
 * extension class names each constructor parameter's token with `@inject(token)` and is marked
 * `@injectable()`. Nothing relies on decorator metadata (`emitDecoratorMetadata` is off: esbuild,
 * tsx and vite emit none), so a parameter without `@inject` is refused when the class is built.
 */
import 'reflect-metadata' // tsyringe reads its parameter tokens through the Reflect metadata API
import { inject as tsyringeInject, injectable } from 'tsyringe'

declare const resolvesTo: unique symbol

/** An injection token: a symbol that resolves to a `T`. */
export type Token<T> = symbol & { readonly [resolvesTo]?: T }

/** What a token resolves to. */
export type TokenType<K> = K extends Token<infer T> ? T : never

/** A class whose instances the container can build (its parameters named with `@inject`). */
export type Constructor<T> = new (...args: never[]) => T

/** Resolve a token, or build an injectable class, in the engine's container. */
export type Resolve = <T>(what: Token<T> | Constructor<T>) => T

/** A new token; `description` names it in errors ("hark.log"). */
export const token = <T>(description: string): Token<T> => Symbol(description) as Token<T>

/** Parameter decorator: this constructor parameter receives what `token` resolves to. */
export const inject = (token: Token<unknown>): ((target: object, key: string | symbol | undefined, index: number) => void) =>
  tsyringeInject(token)

export { injectable }
