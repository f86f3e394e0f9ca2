/**
 * Room recordings in an engine: its service and layer. Built before the extensions (the workspace
 * operations carry it) and before any transport, so the recovery pass finishes what a crash left
 * open before a terminal can join a room; released after the transports and rooms have closed
 * (every room's recording is finished by then). It hears the dispatcher's agents: one whose preset
 * records has its room recorded while it is there.
 */
import * as Context from 'effect/Context'
import * as Effect from 'effect/Effect'
import * as Layer from 'effect/Layer'
import { Agents } from '../agentRuntime/dispatcherLayer.js'
import { Clock } from '../clock.js'
import type { Settings } from '../config.js'
import { nodeIdOf } from '../cluster/nodeId.js'
import { Log } from '../log.js'
import { ExtensionError, messageOf } from '../startupErrors.js'
import { Storage } from '../storage/storage.js'
import { Terminals } from '../terminals.js'
import { WebhookOutboxService } from '../webhooks/outboxLayer.js'
import { Recordings } from './recordings.js'

export class RecordingsService extends Context.Service<RecordingsService, Recordings>()('hark/Recordings') {}

export const makeRecordings = (settings: Settings) =>
  Effect.gen(function* () {
    const outbox = yield* WebhookOutboxService
    const recordings = new Recordings({
      settings,
      storage: yield* Storage,
      clock: yield* Clock,
      hub: yield* Terminals,
      log: (yield* Log).child({ component: 'recordings' }),
      nodeId: nodeIdOf(settings.cluster.nodeId, settings.dataDir),
      publish: (e) => outbox.publish(e),
    })
    const agents = yield* Agents
    const started = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => recordings.start().then(() => recordings),
        catch: (e) => new ExtensionError({ extension: 'recordings', message: `recordings could not start: ${messageOf(e)}`, cause: e }),
      }),
      (r) => Effect.promise(() => r.stop()),
    )
    // An agent whose preset records: the room is recorded while it is there (spec/records.md).
    yield* Effect.acquireRelease(
      Effect.sync(() =>
        agents.onAgent((e) => {
          if (e.record === null) return
          if (e.type === 'started') recordings.agentJoined(e.workspaceId, e.agent.room, e.agent.agentId, e.record)
          else recordings.agentLeft(e.workspaceId, e.agent.room, e.agent.agentId)
        })),
      (off) => Effect.sync(off),
    )
    return started
  })

export const recordingsLayer = (settings: Settings) => Layer.effect(RecordingsService, makeRecordings(settings))
