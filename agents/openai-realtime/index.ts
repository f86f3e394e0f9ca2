/**
 * The `openai-realtime` agent provider: a voice agent backed by the OpenAI Realtime API (or any
 * server speaking its WebSocket protocol at `agents.openaiRealtime.baseUrl`). The endpoint and the
 * key are server settings; a preset or a dispatch chooses only model, voice, instructions and
 * turn-taking — and never sees either.
 */
// Effect's modules one by one, not the 'effect' barrel: a provider worker then loads only these.
import * as Effect from 'effect/Effect'
import * as Schema from 'effect/Schema'
import { AgentFailure, defineAgentProvider, defineSettings, setting, toolConfigFields, type AgentProvider } from '../../core/provider.js'
import { RealtimeSession, type RealtimeConfig } from './session.js'

const text = (fallback: string, description: string, maxLength = 200) =>
  Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(maxLength))
    .annotate({ description, default: fallback })
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed(fallback)))

export const OpenAiRealtimeConfig = Schema.Struct({
  model: text('gpt-realtime', 'Realtime model'),
  voice: text('alloy', 'output voice'),
  instructions: text('You are a helpful voice assistant in an audio room. Keep answers short.', 'system instructions', 16_000),
  vadSilenceMs: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 100, maximum: 5000 })).annotate({ description: 'silence that ends a turn (server VAD), ms' }),
  ),
  inputTranscriptionModel: Schema.optionalKey(
    Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(100)).annotate({ description: 'transcribe what the room says with this model' }),
  ),
  ...toolConfigFields,
}).annotate({ description: 'openai-realtime: a speech-to-speech agent' })

/** Server settings: where the Realtime API is and its key (never in a preset, a response or a log). */
export const openaiRealtimeSettings = defineSettings('agents.openaiRealtime', {
  baseUrl: setting(Schema.NonEmptyString, 'wss://api.openai.com/v1', 'Realtime API base; a session connects to <baseUrl>/realtime?model=…'),
  apiKey: setting(
    Schema.NullOr(Schema.NonEmptyString),
    null,
    'the API key (prefer apiKeyEnv or the environment variable); null → read from the variable apiKeyEnv names',
  ),
  apiKeyEnv: setting(Schema.NonEmptyString, 'OPENAI_API_KEY', 'environment variable read for the key when apiKey is null'),
})

type Endpoint = typeof openaiRealtimeSettings.Type

/** The key from settings, or from the environment variable they name. */
const apiKeyOf = (s: Endpoint, env: NodeJS.ProcessEnv): string | null => s.apiKey ?? env[s.apiKeyEnv] ?? null

const hostsOf = (baseUrl: string): string[] => {
  try {
    const url = new URL(baseUrl)
    return [url.host, url.hostname]
  } catch {
    return []
  }
}

const secretsOf = (endpoint: Endpoint, env: NodeJS.ProcessEnv): string[] =>
  [apiKeyOf(endpoint, env) ?? '', endpoint.baseUrl, ...hostsOf(endpoint.baseUrl)].filter((s) => s.length > 0)

export const createOpenAiRealtimeProvider = (
  endpoint: Endpoint,
  env: NodeJS.ProcessEnv = process.env,
): AgentProvider<RealtimeConfig> => ({
  description: 'Speech-to-speech agent on the OpenAI Realtime API (server VAD, barge-in)',
  configSchema: OpenAiRealtimeConfig,
  secrets: () => secretsOf(endpoint, env),
  start: async (ctx) => {
    const apiKey = apiKeyOf(endpoint, env)
    if (!apiKey) {
      throw new AgentFailure(
        'openai-realtime has no API key: set agents.openaiRealtime.apiKey, or the variable agents.openaiRealtime.apiKeyEnv names',
      )
    }
    return RealtimeSession.open(ctx, { baseUrl: endpoint.baseUrl, apiKey, secrets: secretsOf(endpoint, env) })
  },
})

/** In a provider worker (isolated): it parses and resamples whatever a remote server sends. */
export const openaiRealtimeAgent = defineAgentProvider('openai-realtime', {
  settings: openaiRealtimeSettings,
  module: import.meta.url,
  create: (resolve) => createOpenAiRealtimeProvider(resolve(openaiRealtimeSettings.key)),
})
