/**
 * A small typed event emitter: `on(name, listener)` returns the function that removes it. Events
 * carry a tuple of arguments, so the per-frame audio event allocates nothing for the call.
 * A listener that throws does not stop the others; the error is reported asynchronously.
 */
export type EventArgs = Record<string, ReadonlyArray<unknown>>

type Listener<A extends ReadonlyArray<unknown>> = (...args: A) => void

export class Emitter<M extends EventArgs> {
  private readonly listeners = new Map<keyof M, Array<Listener<never>>>()

  on<K extends keyof M>(name: K, listener: Listener<M[K]>): () => void {
    const list = this.listeners.get(name)
    // Copy on write: an emit in progress walks the array it started with.
    this.listeners.set(name, list ? [...list, listener as Listener<never>] : [listener as Listener<never>])
    return () => this.off(name, listener)
  }

  once<K extends keyof M>(name: K, listener: Listener<M[K]>): () => void {
    const off = this.on(name, ((...args: M[K]) => {
      off()
      listener(...args)
    }) as Listener<M[K]>)
    return off
  }

  off<K extends keyof M>(name: K, listener: Listener<M[K]>): void {
    const list = this.listeners.get(name)
    if (!list) return
    const next = list.filter((l) => l !== (listener as Listener<never>))
    if (next.length === 0) this.listeners.delete(name)
    else this.listeners.set(name, next)
  }

  /** Whether anything listens to `name` (work for an event nobody hears is skipped). */
  has(name: keyof M): boolean {
    return this.listeners.has(name)
  }

  protected emit<K extends keyof M>(name: K, ...args: M[K]): void {
    const list = this.listeners.get(name) as Array<Listener<M[K]>> | undefined
    if (!list) return
    for (const listener of list) {
      try {
        listener(...args)
      } catch (error) {
        queueMicrotask(() => {
          throw error
        })
      }
    }
  }
}
