/**
 * The three OpenAI-compatible HTTP APIs the pipeline agent speaks, over Node's own fetch:
 * `POST /audio/transcriptions` (a multipart upload of a WAV file, JSON `{text}` back),
 * `POST /chat/completions` with `stream: true` (server-sent events of `chat.completion.chunk`,
 * parsed with eventsource-parser, ending with `[DONE]`) and `POST /audio/speech` (`pcm`: raw
 * 24 kHz 16-bit little-endian mono, or `wav`), each at its own base URL with its own key.
 *
 * Every request has an idle timeout: the response must start, and each further chunk arrive,
 * within `timeoutMs`, counted on the agent's clock (`ctx.clock`: the engine's). Failures are `ApiError`s naming the stage, the HTTP status and the error
 * code the server gave; their messages hold no key and no URL (the caller scrubs the server's
 * own message before logging it).
 */
import { createParser } from 'eventsource-parser'
import type { ClockShape, Timer } from '../../core/provider.js'

export type Stage = 'stt' | 'llm' | 'tts'

export interface ApiEndpoint {
  readonly baseUrl: string
  /** null: no Authorization header (a local server without keys). */
  readonly apiKey: string | null
  readonly timeoutMs: number
  /** What the idle timeout runs on: the agent's clock. */
  readonly clock: Pick<ClockShape, 'setTimeout' | 'clearTimeout'>
}

export class ApiError extends Error {
  override readonly name = 'ApiError'
  constructor(
    readonly stage: Stage,
    /** The HTTP status, or null when there was no response (timeout, connection). */
    readonly status: number | null,
    /** A short public reason: `HTTP 500`, `HTTP 401 invalid_api_key`, `timed out`, `connection failed`, … */
    readonly reason: string,
    /** The server's own message (may echo a masked key: scrub before logging). */
    readonly detail: string = '',
  ) {
    super(`${stage}: ${reason}`)
  }

  /** The server refused the credentials: retrying cannot help. */
  get refused(): boolean {
    return this.status === 401 || this.status === 403
  }
}

/** One function call the model asked for, its arguments assembled from the streamed deltas. */
export interface ToolCall {
  readonly id: string
  readonly type: 'function'
  readonly function: { readonly name: string; readonly arguments: string }
}

export type ChatMessage =
  | { readonly role: 'system' | 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly content: string | null; readonly tool_calls?: ReadonlyArray<ToolCall> }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string }

/** A function offered to the chat model (the request's `tools[].function`). */
export interface ChatFunction {
  readonly name: string
  readonly description: string
  readonly parameters: Readonly<Record<string, unknown>>
}

/** What the reply stream yields: pieces of text, then (at most once, at the end) the tool calls asked for. */
export type ChatPiece = string | { readonly toolCalls: ReadonlyArray<ToolCall> }

/** Streamed `tool_calls` deltas: the first of an index carries id, type and name; later ones, pieces of `arguments`. */
interface ToolCallDelta {
  index?: unknown
  id?: unknown
  function?: { name?: unknown; arguments?: unknown }
}

const url = (baseUrl: string, path: string) => `${baseUrl.replace(/\/+$/, '')}${path}`

/** Aborts when the caller aborts, or when nothing arrived for `timeoutMs` (restarted by `touch`). */
class IdleDeadline {
  private readonly controller = new AbortController()
  private timer: Timer | undefined
  private readonly timeoutMs: number
  private readonly clock: ApiEndpoint['clock']
  timedOut = false
  readonly signal: AbortSignal

  constructor(ep: ApiEndpoint, outer: AbortSignal) {
    this.timeoutMs = ep.timeoutMs
    this.clock = ep.clock
    this.signal = AbortSignal.any([outer, this.controller.signal])
    this.touch()
  }

  touch(): void {
    this.clock.clearTimeout(this.timer)
    this.timer = this.clock.setTimeout(() => {
      this.timedOut = true
      this.controller.abort()
    }, this.timeoutMs)
  }

  done(): void {
    this.clock.clearTimeout(this.timer)
  }
}

/** POST and return the response once its status is known to be 2xx. */
const post = async (stage: Stage, ep: ApiEndpoint, path: string, body: string | FormData, contentType: string | null, deadline: IdleDeadline): Promise<Response> => {
  const headers: Record<string, string> = {}
  if (ep.apiKey) headers.authorization = `Bearer ${ep.apiKey}`
  if (contentType) headers['content-type'] = contentType
  let res: Response
  try {
    res = await fetch(url(ep.baseUrl, path), { method: 'POST', headers, body, signal: deadline.signal })
  } catch (e) {
    throw failure(stage, e, deadline)
  }
  deadline.touch()
  if (res.ok) return res
  let code = ''
  let detail = ''
  try {
    const parsed = (await res.json()) as { error?: { code?: unknown; type?: unknown; message?: unknown } }
    code = typeof parsed.error?.code === 'string' ? parsed.error.code : typeof parsed.error?.type === 'string' ? parsed.error.type : ''
    detail = typeof parsed.error?.message === 'string' ? parsed.error.message : ''
  } catch {
    // Not the JSON error envelope: the status says enough.
  }
  throw new ApiError(stage, res.status, `HTTP ${res.status}${/^[a-z0-9_.-]{1,60}$/i.test(code) ? ` ${code}` : ''}`, detail)
}

/** Any failure as an ApiError (an abort by the caller is rethrown as is: it is not a failure). */
const failure = (stage: Stage, e: unknown, deadline: IdleDeadline): unknown => {
  if (e instanceof ApiError) return e
  if (deadline.timedOut) return new ApiError(stage, null, 'timed out')
  if (deadline.signal.aborted) return e
  if (e instanceof SyntaxError) return new ApiError(stage, null, 'malformed response')
  return new ApiError(stage, null, 'connection failed')
}

/** 16 kHz mono PCM as a WAV file (the upload format every transcription server accepts). */
export const wavFile = (pcm: Int16Array, rate: number): Uint8Array => {
  const bytes = new Uint8Array(44 + pcm.byteLength)
  const view = new DataView(bytes.buffer)
  const ascii = (at: number, s: string) => [...s].forEach((c, i) => view.setUint8(at + i, c.charCodeAt(0)))
  ascii(0, 'RIFF')
  view.setUint32(4, 36 + pcm.byteLength, true)
  ascii(8, 'WAVE')
  ascii(12, 'fmt ')
  view.setUint32(16, 16, true)
  view.setUint16(20, 1, true) // PCM
  view.setUint16(22, 1, true) // mono
  view.setUint32(24, rate, true)
  view.setUint32(28, rate * 2, true)
  view.setUint16(32, 2, true)
  view.setUint16(34, 16, true)
  ascii(36, 'data')
  view.setUint32(40, pcm.byteLength, true)
  for (let i = 0; i < pcm.length; i++) view.setInt16(44 + i * 2, pcm[i]!, true)
  return bytes
}

/** Speech to text: the utterance's transcript. */
export const transcribe = async (
  ep: ApiEndpoint,
  request: { readonly model: string; readonly language?: string },
  wav: Uint8Array,
  signal: AbortSignal,
): Promise<string> => {
  const deadline = new IdleDeadline(ep, signal)
  try {
    const form = new FormData()
    form.append('file', new Blob([wav], { type: 'audio/wav' }), 'utterance.wav')
    form.append('model', request.model)
    form.append('response_format', 'json')
    if (request.language) form.append('language', request.language)
    const res = await post('stt', ep, '/audio/transcriptions', form, null, deadline)
    const body = (await res.json()) as { text?: unknown }
    if (typeof body.text !== 'string') throw new ApiError('stt', res.status, 'malformed response')
    return body.text
  } catch (e) {
    throw failure('stt', e, deadline)
  } finally {
    deadline.done()
  }
}

/**
 * The chat model's reply, streamed: yields each piece of text as it arrives, then the tool calls
 * the model asked for (when `functions` were offered and it called some).
 */
export async function* chatStream(
  ep: ApiEndpoint,
  request: { readonly model: string; readonly messages: ReadonlyArray<ChatMessage>; readonly functions?: ReadonlyArray<ChatFunction> },
  signal: AbortSignal,
): AsyncGenerator<ChatPiece> {
  const deadline = new IdleDeadline(ep, signal)
  try {
    const tools = request.functions && request.functions.length > 0 ? { tools: request.functions.map((f) => ({ type: 'function', function: f })) } : {}
    const body = JSON.stringify({ model: request.model, messages: request.messages, stream: true, ...tools })
    const res = await post('llm', ep, '/chat/completions', body, 'application/json', deadline)
    if (!res.body) throw new ApiError('llm', res.status, 'malformed response')
    const pieces: string[] = []
    const calls = new Map<number, { id: string; name: string; arguments: string }>()
    let finished = false
    let broken: ApiError | null = null
    const parser = createParser({
      onEvent: (message) => {
        if (finished) return
        if (message.data === '[DONE]') {
          finished = true
          return
        }
        try {
          const chunk = JSON.parse(message.data) as { choices?: Array<{ delta?: { content?: unknown; tool_calls?: unknown } }>; error?: { message?: unknown } }
          if (chunk.error) broken = new ApiError('llm', res.status, 'error in stream', String(chunk.error.message ?? ''))
          const delta = chunk.choices?.[0]?.delta
          const content = delta?.content
          if (typeof content === 'string' && content.length > 0) pieces.push(content)
          if (Array.isArray(delta?.tool_calls)) for (const d of delta.tool_calls as ToolCallDelta[]) addToolCallDelta(calls, d)
        } catch {
          broken = new ApiError('llm', res.status, 'malformed response')
        }
      },
    })
    const decoder = new TextDecoder()
    for await (const bytes of res.body) {
      deadline.touch()
      parser.feed(decoder.decode(bytes as Uint8Array, { stream: true }))
      if (broken) throw broken
      while (pieces.length > 0) yield pieces.shift()!
      if (finished) break
    }
    if (!finished) throw new ApiError('llm', res.status, 'stream ended early')
    const toolCalls = [...calls.entries()]
      .sort(([a], [b]) => a - b)
      .filter(([, c]) => c.name.length > 0)
      .map(([, c]) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } }))
    if (toolCalls.length > 0) yield { toolCalls }
  } catch (e) {
    throw failure('llm', e, deadline)
  } finally {
    deadline.done()
  }
}

/** Tool calls a stream may assemble at most (more are ignored). */
const MAX_TOOL_CALLS = 16
/** Characters of one call's arguments kept at most. */
const MAX_ARGUMENT_CHARS = 64_000

const addToolCallDelta = (calls: Map<number, { id: string; name: string; arguments: string }>, d: ToolCallDelta): void => {
  const index = typeof d?.index === 'number' && Number.isInteger(d.index) ? d.index : 0
  let call = calls.get(index)
  if (!call) {
    if (calls.size >= MAX_TOOL_CALLS) return
    calls.set(index, (call = { id: '', name: '', arguments: '' }))
  }
  if (typeof d.id === 'string' && d.id.length > 0) call.id = d.id
  if (typeof d.function?.name === 'string') call.name += d.function.name
  if (typeof d.function?.arguments === 'string' && call.arguments.length < MAX_ARGUMENT_CHARS) call.arguments += d.function.arguments
  if (!call.id) call.id = `call_${index}`
}

/** Text to speech: yields the audio as 16-bit PCM chunks with their sample rate, as they arrive. */
export async function* speech(
  ep: ApiEndpoint,
  request: { readonly model: string; readonly voice: string; readonly input: string; readonly format: 'pcm' | 'wav' },
  signal: AbortSignal,
): AsyncGenerator<{ pcm: Int16Array; rate: number }> {
  const deadline = new IdleDeadline(ep, signal)
  try {
    const body = JSON.stringify({ model: request.model, voice: request.voice, input: request.input, response_format: request.format })
    const res = await post('tts', ep, '/audio/speech', body, 'application/json', deadline)
    if (!res.body) throw new ApiError('tts', res.status, 'malformed response')
    const reader = new PcmReader(request.format)
    for await (const bytes of res.body) {
      deadline.touch()
      const chunk = reader.feed(bytes as Uint8Array)
      if (chunk.pcm.length > 0) yield chunk
    }
    reader.end()
  } catch (e) {
    throw failure('tts', e, deadline)
  } finally {
    deadline.done()
  }
}

/** OpenAI's `pcm` speech: 24 kHz, 16-bit signed little-endian, mono, no header. */
export const PCM_SPEECH_RATE = 24_000

/** Streamed speech bytes to PCM: raw, or a WAV header (16-bit PCM, mono) then samples; odd bytes carried over. */
class PcmReader {
  private header: Uint8Array | null
  private rate = PCM_SPEECH_RATE
  private carry: number | null = null

  constructor(format: 'pcm' | 'wav') {
    this.header = format === 'wav' ? new Uint8Array(0) : null
  }

  feed(bytes: Uint8Array): { pcm: Int16Array; rate: number } {
    let data = bytes
    if (this.header !== null) {
      const joined = new Uint8Array(this.header.length + bytes.length)
      joined.set(this.header)
      joined.set(bytes, this.header.length)
      const start = this.parseWavHeader(joined)
      if (start === null) {
        if (joined.length > 4096) throw new ApiError('tts', null, 'malformed response')
        this.header = joined
        return { pcm: new Int16Array(0), rate: this.rate }
      }
      this.header = null
      data = joined.subarray(start)
    }
    let withCarry = data
    if (this.carry !== null) {
      withCarry = new Uint8Array(data.length + 1)
      withCarry[0] = this.carry
      withCarry.set(data, 1)
    }
    const even = withCarry.length & ~1
    this.carry = even < withCarry.length ? withCarry[even]! : null
    const pcm = new Int16Array(even >> 1)
    const view = new DataView(withCarry.buffer, withCarry.byteOffset, even)
    for (let i = 0; i < pcm.length; i++) pcm[i] = view.getInt16(i * 2, true)
    return { pcm, rate: this.rate }
  }

  end(): void {
    if (this.header !== null) throw new ApiError('tts', null, 'malformed response')
  }

  /** The offset of the samples once the header is complete, null while more is needed. */
  private parseWavHeader(b: Uint8Array): number | null {
    if (b.length < 12) return null
    const ascii = (at: number) => String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!)
    if (ascii(0) !== 'RIFF' || ascii(8) !== 'WAVE') throw new ApiError('tts', null, 'malformed response')
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength)
    let at = 12
    while (at + 8 <= b.length) {
      const id = ascii(at)
      const size = view.getUint32(at + 4, true)
      if (id === 'data') return at + 8
      if (at + 8 + size > b.length) return null
      if (id === 'fmt ') {
        const format = view.getUint16(at + 8, true)
        const channels = view.getUint16(at + 10, true)
        const bits = view.getUint16(at + 22, true)
        if (format !== 1 || channels !== 1 || bits !== 16) throw new ApiError('tts', null, 'unsupported audio (need 16-bit mono PCM)')
        this.rate = view.getUint32(at + 12, true)
      }
      at += 8 + size + (size & 1)
    }
    return null
  }
}
