/**
 * The `pipeline` agent provider: a voice agent assembled from three OpenAI-compatible HTTP APIs —
 * speech-to-text (`/audio/transcriptions`), a chat model (streaming `/chat/completions`) and
 * text-to-speech (`/audio/speech`) — with a Silero VAD model deciding turns. Each API has its own
 * base URL and key in the server settings (`agents.pipeline.stt|llm|tts`), so it works with
 * OpenAI and with local servers that speak the same APIs; a preset chooses only models, voice,
 * instructions and turn-taking.
 */
// Effect's modules one by one, not the 'effect' barrel: a provider worker then loads only these.
import * as Effect from 'effect/Effect'
import * as Schema from 'effect/Schema'
import { defineAgentProvider, defineSettings, intBetween, setting, toolConfigFields, type AgentProvider } from '../../core/provider.js'
import { PipelineSession, type PipelineConfig } from './session.js'

/** One OpenAI-compatible HTTP API: its base URL and key (null and no variable: no key is sent). */
const api = (what: string) => ({
  baseUrl: setting(
    Schema.String.check(Schema.isPattern(/^https?:\/\/[^\s]+$/)),
    'https://api.openai.com/v1',
    `the pipeline agent's ${what}, OpenAI or a local server with the same API`,
  ),
  apiKey: setting(
    Schema.NullOr(Schema.NonEmptyString),
    null,
    'null → read from the variable apiKeyEnv names; neither set: no key is sent (prefer an environment variable)',
  ),
  apiKeyEnv: setting(Schema.NonEmptyString, 'OPENAI_API_KEY', 'environment variable read for the key when apiKey is null'),
})

/** Server settings: each API's endpoint and key (never in a preset, a response or a log). */
export const pipelineSettings = defineSettings('agents.pipeline', {
  stt: api('speech-to-text (/audio/transcriptions)'),
  llm: api('chat model (streaming /chat/completions)'),
  tts: api('text-to-speech (/audio/speech)'),
  requestTimeoutMs: setting(intBetween(100, 120_000), 15_000, 'a pipeline request must answer, and each streamed chunk arrive, within it'),
})

type Endpoints = typeof pipelineSettings.Type
type Api = Endpoints['stt']

const text = (fallback: string, description: string, maxLength = 200) =>
  Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(maxLength))
    .annotate({ description, default: fallback })
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed(fallback)))

const number = (schema: typeof Schema.Number, minimum: number, maximum: number, fallback: number, description: string) =>
  schema
    .check(Schema.isBetween({ minimum, maximum }))
    .annotate({ description, default: fallback })
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed(fallback)))

const int = (minimum: number, maximum: number, fallback: number, description: string) => number(Schema.Int, minimum, maximum, fallback, description)

export const PipelineConfigSchema = Schema.Struct({
  sttModel: text('gpt-4o-mini-transcribe', 'speech-to-text model'),
  language: Schema.optionalKey(
    Schema.String.check(Schema.isPattern(/^[a-z]{2,3}$/)).annotate({ description: 'language of the room (ISO-639-1), helps transcription' }),
  ),
  llmModel: text('gpt-4o-mini', 'chat model'),
  instructions: text('You are a helpful voice assistant in an audio room. Keep answers short and speakable.', 'system instructions', 16_000),
  ttsModel: text('gpt-4o-mini-tts', 'text-to-speech model'),
  voice: text('alloy', 'text-to-speech voice'),
  ttsFormat: Schema.Literals(['pcm', 'wav'])
    .annotate({ description: 'speech audio format asked for: pcm (24 kHz) or wav', default: 'pcm' })
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed('pcm' as const))),
  vadThreshold: number(Schema.Number, 0.1, 0.95, 0.5, 'speech probability (Silero VAD) at which speech starts'),
  vadSilenceMs: int(100, 2500, 600, 'silence that ends an utterance, ms (below the room\'s 3 s silence tail)'),
  minSpeechMs: int(100, 2000, 250, 'speech an utterance needs before it counts (and may interrupt the agent), ms'),
  maxUtteranceMs: int(1000, 30_000, 15_000, 'an utterance is cut (and answered) at this length, ms'),
  maxHistoryTurns: int(0, 50, 10, 'exchanges of the conversation sent back to the chat model'),
  ...toolConfigFields,
}).annotate({ description: 'pipeline: speech-to-text, chat model and text-to-speech over OpenAI-compatible HTTP APIs' })

/** The key from settings, or from the environment variable they name; null means no key. */
const keyOf = (api: Api, env: NodeJS.ProcessEnv): string | null => api.apiKey ?? env[api.apiKeyEnv] ?? null

const hostsOf = (baseUrl: string): string[] => {
  try {
    const url = new URL(baseUrl)
    return [url.host, url.hostname]
  } catch {
    return []
  }
}

const secretsOf = (endpoints: Endpoints, env: NodeJS.ProcessEnv): string[] =>
  [endpoints.stt, endpoints.llm, endpoints.tts]
    .flatMap((api) => [keyOf(api, env) ?? '', api.baseUrl, ...hostsOf(api.baseUrl)])
    .filter((s) => s.length > 0)

export const createPipelineProvider = (endpoints: Endpoints, env: NodeJS.ProcessEnv = process.env): AgentProvider<PipelineConfig> => ({
  description: 'Speech-to-text, chat model and text-to-speech over OpenAI-compatible HTTP APIs (Silero VAD, barge-in)',
  configSchema: PipelineConfigSchema,
  secrets: () => secretsOf(endpoints, env),
  start: (ctx) => {
    const api = (a: Api) => ({ baseUrl: a.baseUrl, apiKey: keyOf(a, env), timeoutMs: endpoints.requestTimeoutMs, clock: ctx.clock })
    return PipelineSession.open(ctx, {
      stt: api(endpoints.stt),
      llm: api(endpoints.llm),
      tts: api(endpoints.tts),
      secrets: secretsOf(endpoints, env),
    })
  },
})

/** In a provider worker (isolated): native inference (onnxruntime) and three remote APIs, none of it the engine's business. */
export const pipelineAgent = defineAgentProvider('pipeline', {
  settings: pipelineSettings,
  module: import.meta.url,
  create: (resolve) => createPipelineProvider(resolve(pipelineSettings.key)),
})
