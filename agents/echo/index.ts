/**
 * The `echo` agent provider: listens to the room's mixed audio, cuts it into utterances by voice
 * activity, and plays each utterance back into the room. Deterministic, free, and offline — for
 * tests, demos and latency measurements. It tells the room each time it echoes
 * (`agent.event` {kind: "echo", durationMs, voicedMs}). A terminal's `turn.end` ends the utterance
 * at once; its `turn.abort` (barge-in) drops the echo still playing ({kind: "interrupted"}), and so does a live `interrupt`.
 */
// Effect's modules one by one, not the 'effect' barrel: a provider worker then loads only these.
import * as Effect from 'effect/Effect'
import * as Schema from 'effect/Schema'
import { defineAgentProvider, type AgentProvider } from '../../core/provider.js'
import { UtteranceSegmenter } from './segmenter.js'

const int = (minimum: number, maximum: number, fallback: number, description: string) =>
  Schema.Int.check(Schema.isBetween({ minimum, maximum }))
    .annotate({ description, default: fallback })
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed(fallback)))

export const EchoConfig = Schema.Struct({
  silenceMs: int(100, 2000, 500, 'silence that ends an utterance, ms'),
  thresholdDbov: int(10, 90, 50, 'a 20 ms frame at or above this level (in -dBov: lower is louder) is speech'),
  prerollMs: int(0, 500, 100, 'audio kept from before speech started, ms'),
  minSpeechMs: int(0, 2000, 100, 'utterances with less speech than this are not echoed, ms'),
  maxUtteranceMs: int(1000, 30_000, 10_000, 'an utterance is cut (and echoed) at this length, ms'),
}).annotate({ description: 'echo: plays every utterance back' })

export type EchoConfig = typeof EchoConfig.Type

export const createEchoProvider = (): AgentProvider<EchoConfig> => ({
  description: 'Plays every utterance heard in the room back into it (tests, demos, latency checks)',
  configSchema: EchoConfig,
  start: (ctx) => {
    const segmenter = new UtteranceSegmenter(ctx.config, (pcm, voicedMs) => {
      ctx.audio.push(pcm)
      ctx.audio.flush()
      ctx.emit({ kind: 'echo', durationMs: (pcm.length / 16_000) * 1000, voicedMs })
    })
    return {
      onAudio: (pcm) => segmenter.push(pcm),
      // A terminal whose transport knows turns (push-to-talk, a device's "listen stop") ends the
      // utterance at once instead of after silenceMs; a barge-in drops what is still to be played.
      onEvent: (event) => {
        if (event.type !== 'participant.event') return
        if (event.event.kind === 'turn.end') segmenter.finish()
        else if (event.event.kind === 'turn.abort') {
          // Said only when an echo was playing: its turn in the transcript is then cut (core/transcripts/).
          const playing = ctx.audio.speaking
          ctx.audio.clear()
          if (playing) ctx.emit({ kind: 'interrupted' })
        }
      },
      // Live control: an interrupt drops what is still to be played, as a barge-in does (it has no text to say, no instructions).
      control: {
        interrupt: () => {
          if (!ctx.audio.speaking) return
          ctx.audio.clear()
          ctx.emit({ kind: 'interrupted' })
        },
      },
    }
  },
})

/**
 * In the engine's thread (`isolate: false`): first-party, bounded work per frame (a level and a
 * copy), no sockets — a worker hop would only add latency to the engine's own latency checks.
 * `module` lets an embedder run it isolated all the same (`{ ...echoAgent, isolate: true }`).
 */
export const echoAgent = defineAgentProvider('echo', { create: () => createEchoProvider(), isolate: false, module: import.meta.url })
