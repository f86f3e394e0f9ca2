/**
 * The `local` agent provider: a voice agent that needs no cloud and no key. Silero VAD decides
 * turns, pocketsphinx recognises speech, flite speaks, all in the provider worker (native.ts says
 * why in process); its brain is the preset's command grammar (intents mapped to tool calls and
 * reply templates), an OpenAI-compatible chat model the operator names in the server settings,
 * or both. English only. spec/agents.md, "The local provider", has the whole story.
 */
// Effect's modules one by one, not the 'effect' barrel: a provider worker then loads only these.
import * as Effect from 'effect/Effect'
import * as Schema from 'effect/Schema'
import { defineAgentProvider, defineSettings, intBetween, setting, toolConfigFields, type AgentProvider } from '../../core/provider.js'
import { loadDictionary } from './dictionary.js'
import { describeEngines, findEngines, FLITE_VOICES, type FliteVoice } from './engines.js'
import { checkIntents, GrammarError, parsePhrase, type Intent } from './grammar.js'
import type { LocalConfig } from './session.js'

export const localSettings = defineSettings('agents.local', {
  modelDir: setting(Schema.NonEmptyString, '/usr/share/pocketsphinx/model/en-us', "pocketsphinx's model directory (Debian: pocketsphinx-en-us)"),
  libraryDirs: setting(Schema.String, '', 'comma-separated directories holding libpocketsphinx, libsphinxbase and libflite; empty: the usual system ones'),
  chat: {
    baseUrl: setting(
      Schema.NullOr(Schema.String.check(Schema.isPattern(/^https?:\/\/[^\s]+$/))),
      null,
      'an OpenAI-compatible chat API (llama.cpp server, Ollama, vLLM) for brains chat and commands+chat; null: none',
    ),
    model: setting(Schema.NonEmptyString, 'local', 'the chat model asked for'),
    apiKey: setting(Schema.NullOr(Schema.NonEmptyString), null, 'null → read from the variable apiKeyEnv names; neither set: no key is sent'),
    apiKeyEnv: setting(Schema.NonEmptyString, 'HARK_LOCAL_CHAT_API_KEY', 'environment variable read for the key when apiKey is null'),
    timeoutMs: setting(intBetween(100, 120_000), 20_000, 'a chat request must be answered within it'),
  },
})

type Settings = typeof localSettings.Type

/** A field with its default (typed loosely: the whole config is typed as LocalConfig below). */
const withDefault = <T,>(schema: Schema.Codec<T, unknown>, fallback: T, description: string) =>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  (schema as any).annotate({ description, default: fallback }).pipe(Schema.withDecodingDefaultKey(Effect.succeed(fallback))) as Schema.optionalKey<Schema.Codec<T, unknown>>

const text = (fallback: string, description: string, maxLength = 300) =>
  withDefault(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(maxLength)), fallback, description)

const num = (schema: typeof Schema.Number, minimum: number, maximum: number, fallback: number, description: string) =>
  withDefault(schema.check(Schema.isBetween({ minimum, maximum })), fallback, description)

const Phrase = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200))
const SlotValues = Schema.Union([Schema.Array(Schema.String.check(Schema.isMinLength(1))), Schema.Record(Schema.String, Schema.Unknown)])

const IntentSchema = Schema.Struct({
  name: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(64)),
  phrases: Schema.Array(Phrase).check(Schema.isMinLength(1)),
  slots: Schema.optionalKey(Schema.Record(Schema.String, SlotValues)),
  tool: Schema.optionalKey(
    Schema.Struct({
      name: Schema.String.check(Schema.isMinLength(1)),
      client: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1))),
      arguments: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
    }),
  ),
  reply: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(500)),
})

/** The config schema: the intents checked against pocketsphinx's dictionary when there is one. */
export const localConfigSchema = (settings: Pick<Settings, 'modelDir' | 'libraryDirs'>) =>
  Schema.Struct({
    brain: withDefault(Schema.Literals(['commands', 'chat', 'commands+chat']), 'commands', 'commands (the intents), chat (the chat model of the server settings), or commands first and chat for the rest'),
    voice: withDefault(Schema.Literals(Object.keys(FLITE_VOICES) as FliteVoice[]), 'slt', 'flite voice: slt (female), kal16, awb, rms (male) at 16 kHz; kal at 8 kHz'),
    intents: withDefault(Schema.Array(IntentSchema).check(Schema.isMaxLength(64)), [], 'commands: phrases (words, {slot}, [optional], (a | b)) mapped to a tool call and a reply template'),
    words: withDefault(
      Schema.Record(Schema.String.check(Schema.isPattern(/^[a-z][a-z']*$/)), Schema.String.check(Schema.isPattern(/^[A-Z]{1,2}( [A-Z]{1,2})*$/))),
      {},
      "pronunciations of words pocketsphinx's dictionary lacks: word → CMU phones (\"F L AO R P\")",
    ),
    unrecognizedReply: text('Sorry, I did not catch that.', 'said when the words match no intent (brain commands)'),
    toolFailedReply: text('Sorry, that did not work: {result}.', "said when an intent's tool fails; {result} is the reason"),
    instructions: text('You are a helpful voice assistant. Answer in one or two short sentences.', 'system instructions of the chat model', 16_000),
    // tools (permissions of the chat brain's calls), maxToolRounds, toolTimeoutMs, maxToolResultChars: as every model-backed provider.
    ...toolConfigFields,
    vadThreshold: num(Schema.Number, 0.1, 0.95, 0.5, 'speech probability (Silero VAD) at which speech starts'),
    vadSilenceMs: num(Schema.Int, 100, 2500, 300, 'silence that ends an utterance, ms'),
    minSpeechMs: num(Schema.Int, 100, 2000, 200, 'speech an utterance needs before it counts (and may interrupt the agent), ms'),
    maxUtteranceMs: num(Schema.Int, 1000, 30_000, 8000, 'an utterance this long is a monologue: not answered, ms'),
    maxHistoryTurns: num(Schema.Int, 0, 50, 6, 'exchanges of the conversation sent back to the chat model'),
  })
    .check(
      Schema.makeFilter((c: { readonly intents?: ReadonlyArray<Intent> | undefined; readonly words?: Readonly<Record<string, string>> | undefined }) => {
        const intents = c.intents ?? []
        try {
          const engines = findEngines(engineSettings(settings))
          if (engines.model) checkIntents(intents, loadDictionary(engines.model.dictionary), c.words ?? {})
          else intents.forEach((i) => i.phrases.forEach(parsePhrase))
          return undefined
        } catch (e) {
          if (e instanceof GrammarError) return { path: ['intents'], issue: e.message }
          return { path: ['intents'], issue: `the grammar does not compile: ${(e as Error).message}` }
        }
      }),
    )
    .annotate({ description: 'local: pocketsphinx, flite and a command grammar or a local chat model — no cloud, no key' })

const engineSettings = (s: Pick<Settings, 'modelDir' | 'libraryDirs'>) => ({
  modelDir: s.modelDir,
  libraryDirs: s.libraryDirs
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d.length > 0),
})

const keyOf = (s: Settings, env: NodeJS.ProcessEnv): string | null => s.chat.apiKey ?? env[s.chat.apiKeyEnv] ?? null

export const createLocalProvider = (settings: Settings, env: NodeJS.ProcessEnv = process.env): AgentProvider<LocalConfig> & { hostCheck(): { ready: boolean; summary: string } } => {
  const secrets = () => {
    const out = [keyOf(settings, env) ?? '']
    if (settings.chat.baseUrl) {
      out.push(settings.chat.baseUrl)
      try {
        const u = new URL(settings.chat.baseUrl)
        out.push(u.host, u.hostname)
      } catch {
        // not a URL: nothing more to scrub
      }
    }
    return out.filter((s) => s.length > 0)
  }
  return {
    description: 'Offline voice agent: Silero VAD, pocketsphinx speech-to-text, flite text-to-speech; a command grammar and/or a local chat model',
    configSchema: localConfigSchema(settings) as unknown as Schema.Codec<LocalConfig, unknown>,
    secrets,
    hostCheck: () => describeEngines(findEngines(engineSettings(settings))),
    start: async (ctx) => {
      const { LocalSession } = await import('./session.js')
      const chat = settings.chat.baseUrl
        ? { baseUrl: settings.chat.baseUrl, apiKey: keyOf(settings, env), model: settings.chat.model, timeoutMs: settings.chat.timeoutMs }
        : null
      return LocalSession.open(ctx, { engines: findEngines(engineSettings(settings)), chat, secrets: secrets() })
    },
  }
}

/** In a provider worker (isolated): native libraries (pocketsphinx, flite, onnxruntime) stay out of the engine's thread. */
export const localAgent = defineAgentProvider('local', {
  settings: localSettings,
  module: import.meta.url,
  create: (resolve) => createLocalProvider(resolve(localSettings.key)),
})
