/**
 * Which load generator drives a room or connection load: the native one (C, bench/native/) where
 * it speaks the protocol — Hark's WSS terminals, Hark's MQTT devices, the bare uWS peer, MQTT
 * brokers — or the Node room worker (generators/roomWorker.ts with a hook from protocols/),
 * which also speaks WebRTC and mqtt.js. `--generator node` picks the Node one everywhere for
 * comparison. Both answer the same room-worker messages, so the loads above them do not care.
 */
import type { GeneratorKind, MeasureContext } from '../scenario.js'
import { generatorCpus } from '../harness/cores.js'
import { benchModule } from '../harness/paths.js'
import { startWorker, type WorkerHandle } from '../harness/worker.js'
import { nativeGeneratorBinary, startNativeGenerator, type NativeProtocol } from './native.js'

/** A wire format: its Node hook (a module under generators/protocols/) and, if any, its native twin. */
export interface ProtocolChoice {
  /** Bench module of the Node hook, e.g. 'generators/protocols/harkWs'. */
  readonly module: string
  readonly native: NativeProtocol | null
}

export const protocols = {
  /** Hark's terminal protocol over WSS (spec/websocket.md). */
  harkWs: { module: 'generators/protocols/harkWs', native: 'hark-ws' },
  /** The bare uWS fan-out peer: WSS, ?room=&client=, a binary message is a frame. */
  wsPubSub: { module: 'generators/protocols/wsPubSub', native: 'ws-pubsub' },
  /** MQTT 3.1.1 on plain TCP: Hark's device topics (scheme hark) or a broker's room topic (pubsub). */
  rawMqtt: { module: 'generators/protocols/rawMqtt', native: 'raw-mqtt' },
  /** mqtt.js, for comparison with the raw client. */
  mqttPubSub: { module: 'generators/protocols/mqttPubSub', native: null },
  /** werift peer connections (WebRTC): Node only. */
  webrtcPeer: { module: 'generators/protocols/webrtcPeer', native: null },
} as const satisfies Record<string, ProtocolChoice>

export interface StartedGenerators {
  readonly kind: GeneratorKind
  readonly workers: readonly WorkerHandle[]
  /** What to put in RoomStart: the hook's path for Node workers, the thread count for native ones. */
  readonly start: { readonly protocol: string; readonly threads: number }
}

/** The generator a run uses for this protocol: the one asked for, Node when there is no native twin. */
export const generatorFor = (ctx: Pick<MeasureContext, 'generator'>, protocol: ProtocolChoice): GeneratorKind =>
  ctx.generator === 'native' && protocol.native !== null ? 'native' : 'node'

/** One generator thread per generator core (the cores the generators are pinned to; 1 unpinned). */
export const generatorThreads = (ctx: Pick<MeasureContext, 'cores'>): number => (ctx.cores.pinned ? Math.max(1, ctx.cores.generators.length) : 1)

/** Start `count` generator processes pinned to the generator cores. */
export const startRoomGenerators = async (
  ctx: Pick<MeasureContext, 'procs' | 'cores' | 'logFile' | 'generator'>,
  protocol: ProtocolChoice,
  count: number,
): Promise<StartedGenerators> => {
  const kind = generatorFor(ctx, protocol)
  const cpus = generatorCpus(ctx.cores)
  if (kind === 'native') {
    const binary = await nativeGeneratorBinary()
    const workers = Array.from({ length: count }, (_, i) =>
      startNativeGenerator(ctx.procs, { name: `gen-${i + 1}`, binary, protocol: protocol.native!, cpus, logFile: ctx.logFile(`gen-${i + 1}`) }),
    )
    return { kind, workers, start: { protocol: protocol.native!, threads: generatorThreads(ctx) } }
  }
  const module = benchModule(protocol.module)
  const workers = Array.from({ length: count }, (_, i) =>
    startWorker(ctx.procs, { name: `gen-${i + 1}`, module: benchModule('generators/roomWorker'), cpus, logFile: ctx.logFile(`gen-${i + 1}`) }),
  )
  return { kind, workers, start: { protocol: module, threads: 1 } }
}
