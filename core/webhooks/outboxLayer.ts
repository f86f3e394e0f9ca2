/**
 * The webhook outbox in an engine: its service and layer. The outbox itself is outbox.ts, which
 * the CLI uses without an engine, and so without the workspace actors this layer attaches it to.
 */
import * as Context from 'effect/Context'
import * as Effect from 'effect/Effect'
import * as Layer from 'effect/Layer'
import { Clock } from '../clock.js'
import { Log } from '../log.js'
import { Storage } from '../storage/storage.js'
import { Terminals } from '../terminals.js'
import { attachSessionEvents } from './liveEvents.js'
import { WebhookOutbox } from './outbox.js'

/** The engine's webhook outbox as an Effect service (extensions receive it as `services.webhookOutbox`). */
export class WebhookOutboxService extends Context.Service<WebhookOutboxService, WebhookOutbox>()('hark/WebhookOutbox') {}

/**
 * The outbox writes the events of every database change from the start, and the live events of
 * the workspace actors' sessions and rooms (agents are attached where the dispatcher is made).
 * Released after the serving finalizers, so the sessions closed at shutdown are written too, and
 * before storage closes: what is queued is flushed first.
 */
export const webhookOutboxLayer = Layer.effect(
  WebhookOutboxService,
  Effect.acquireRelease(
    Effect.gen(function* () {
      const clock = yield* Clock
      const storage = yield* Storage
      // On its own file the engine is the writer that matters: numbers from memory (sequences.ts).
      const outbox = new WebhookOutbox(storage, clock, yield* Log, { numbering: storage.remote === null ? 'memory' : 'table' })
      const uninstall = outbox.install()
      const detach = attachSessionEvents(yield* Terminals, clock, (e) => outbox.publish(e))
      return { outbox, detach, uninstall }
    }),
    // No new live events; what is queued is written (its commit confirmed through the change listener); then the writer goes.
    ({ outbox, detach, uninstall }) =>
      Effect.sync(detach).pipe(
        Effect.andThen(Effect.promise(() => outbox.flush())),
        Effect.ensuring(Effect.sync(uninstall)),
      ),
  ).pipe(Effect.map(({ outbox }) => outbox)),
)
