/**
 * A local stand-in for the three OpenAI HTTP APIs the pipeline agent uses (the one allowed mock:
 * a third-party cloud), written from their published reference, on a real HTTP server on
 * 127.0.0.1. One server plays all three; each API checks its own key, so a test proves every
 * stage uses its own setting.
 *
 * - `POST /v1/audio/transcriptions`: a multipart/form-data upload with `file` (a WAV file: it is
 *   parsed, 16-bit PCM mono required) and `model`; answers `{text}` (or plain text for
 *   `response_format: text`). The fake cannot recognise speech: it answers the next scripted text.
 * - `POST /v1/chat/completions` with `stream: true`: server-sent events, one `chat.completion.chunk`
 *   per word (the first carrying `role`), a last chunk with `finish_reason: "stop"`, then
 *   `data: [DONE]`. A reply may hold after a given text until the test releases it.
 * - `POST /v1/audio/speech`: `{model, input, voice, response_format}`; `pcm` (raw 24 kHz 16-bit
 *   little-endian mono) or `wav` (RIFF header, then the same samples), sent in uneven chunks — a
 *   tone of 55 ms per character of input. Other formats (mp3, opus, …) get a 400: the fake does not encode them.
 * - Errors use the API's envelope `{error: {message, type, param, code}}`; a wrong key is a 401
 *   `invalid_api_key` whose message shows the key masked, as the real API does.
 * - The test can make the next request of a stage fail with a status, or hang (never answer).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Inbox } from '../../../core/test/helpers.js'

export type FakeStage = 'stt' | 'llm' | 'tts'

export const SPEECH_RATE = 24_000
/** Audio the fake's speech holds per character of input. */
export const MS_PER_CHAR = 55

export interface FakeRequest {
  readonly stage: FakeStage
  readonly body: Record<string, unknown>
  /** The uploaded audio (transcriptions): its samples and rate. */
  readonly audio?: { readonly pcm: Int16Array; readonly rate: number }
  /** Set when the client went away before the answer was complete. */
  aborted: boolean
  /** Set when the answer was sent in full. */
  completed: boolean
  /** Resolves when the exchange is over (answered, or the client went away). */
  readonly closed: Promise<void>
}

/**
 * A chat reply that calls tools, streamed as the real API does: a first delta per call with its
 * `index`, `id`, `type` and `name` (arguments ""), then the arguments' JSON in pieces, then
 * `finish_reason: "tool_calls"`. `name` is the tool as the test knows it: the fake calls the
 * offered function whose name ends with it made API-safe (as a model picks one of the tools it
 * was given), or `name` itself when none was offered (a model calling what it may not).
 */
export interface FakeToolReply {
  readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly arguments: Readonly<Record<string, unknown>> | string }>
}

/** `^[a-zA-Z0-9_-]{1,64}$`: the API's function names. */
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/

export interface FakeScript {
  /** Transcripts answered in turn (the last one repeats). */
  transcripts: string[]
  /** Chat replies answered in turn (the last one repeats). */
  replies: Array<string | FakeToolReply>
  /** Hold the chat stream after this text has been sent, until `release()`. */
  holdAfter?: string
  /** Pitch of the speech tone. */
  hz: number
}

/** What the API refuses in `messages` (roles, contents, tool calls and their answers), or null. */
const invalidMessages = (messages: unknown[]): string | null => {
  const unanswered = new Set<string>()
  for (const [i, m] of messages.entries()) {
    const msg = m as { role?: unknown; content?: unknown; tool_calls?: unknown; tool_call_id?: unknown }
    if (unanswered.size > 0 && msg.role !== 'tool') {
      return "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'."
    }
    if (msg.role === 'system' || msg.role === 'user') {
      if (typeof msg.content !== 'string') return `Invalid type for 'messages[${i}].content'.`
    } else if (msg.role === 'assistant') {
      if (typeof msg.content !== 'string' && !(msg.content === null && Array.isArray(msg.tool_calls))) return `Invalid type for 'messages[${i}].content'.`
      for (const c of Array.isArray(msg.tool_calls) ? msg.tool_calls : []) {
        const call = c as { id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } }
        if (typeof call.id !== 'string' || call.type !== 'function' || typeof call.function?.name !== 'string' || typeof call.function.arguments !== 'string') {
          return `Invalid value for 'messages[${i}].tool_calls'.`
        }
        unanswered.add(call.id)
      }
    } else if (msg.role === 'tool') {
      if (typeof msg.tool_call_id !== 'string' || !unanswered.delete(msg.tool_call_id)) {
        return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
      }
      if (typeof msg.content !== 'string') return `Invalid type for 'messages[${i}].content'.`
    } else return `Invalid value for 'messages[${i}].role'.`
  }
  return null
}

/** The names of the offered functions, or what the API refuses in `tools`. */
const invalidTools = (tools: unknown): string[] | string => {
  if (tools === undefined) return []
  if (!Array.isArray(tools) || tools.length === 0 || tools.length > 128) return "Invalid value for 'tools'."
  const names: string[] = []
  for (const [i, t] of tools.entries()) {
    const tool = t as { type?: unknown; function?: { name?: unknown; description?: unknown; parameters?: unknown } }
    if (tool.type !== 'function' || typeof tool.function !== 'object' || tool.function === null) return `Invalid value for 'tools[${i}]'.`
    const f = tool.function
    if (typeof f.name !== 'string' || !FUNCTION_NAME.test(f.name)) return `Invalid 'tools[${i}].function.name': string does not match pattern.`
    if (f.description !== undefined && typeof f.description !== 'string') return `Invalid type for 'tools[${i}].function.description'.`
    if (f.parameters !== undefined && (typeof f.parameters !== 'object' || f.parameters === null || Array.isArray(f.parameters))) {
      return `Invalid type for 'tools[${i}].function.parameters'.`
    }
    names.push(f.name)
  }
  return names
}

const maskedKey = (key: string) => `${key.slice(0, 3)}${'*'.repeat(Math.max(4, key.length - 7))}${key.slice(-4)}`

export class FakeOpenAiHttp {
  readonly requests = new Inbox<FakeRequest>()
  readonly script: FakeScript = { transcripts: ['hello'], replies: ['Hello there.'], hz: 440 }
  private readonly failures = new Map<FakeStage, { status: number; code: string } | 'hang' | 'garbage'>()
  private counts = { stt: 0, llm: 0 }
  private release: (() => void) | null = null
  private releasedNow = false
  private readonly hanging = new Set<ServerResponse>()

  private constructor(
    private readonly server: Server,
    private readonly keys: Record<FakeStage, string>,
  ) {
    server.on('request', (req, res) => void this.handle(req, res))
  }

  static async start(keys: Record<FakeStage, string>): Promise<FakeOpenAiHttp> {
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return new FakeOpenAiHttp(server, keys)
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`
  }

  /**
   * The next request of `stage` fails with `status`, hangs (headers never come), or is answered
   * with garbage under a 200 (chat: an event that is not JSON; speech: a body that is not a WAV file).
   */
  failNext(stage: FakeStage, failure: { status: number; code: string } | 'hang' | 'garbage'): void {
    this.failures.set(stage, failure)
  }

  /** Let a held chat stream go on. */
  releaseHold(): void {
    this.releasedNow = true
    this.release?.()
  }

  of(stage: FakeStage): FakeRequest[] {
    return this.requests.items.filter((r) => r.stage === stage)
  }

  async stop(): Promise<void> {
    this.releaseHold()
    for (const res of this.hanging) res.destroy()
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private error(res: ServerResponse, status: number, message: string, code: string | null, type = 'invalid_request_error', param: string | null = null): void {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ error: { message, type, param, code } }))
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const stage: FakeStage | null =
      req.method === 'POST' && req.url === '/v1/audio/transcriptions' ? 'stt'
      : req.method === 'POST' && req.url === '/v1/chat/completions' ? 'llm'
      : req.method === 'POST' && req.url === '/v1/audio/speech' ? 'tts'
      : null
    if (!stage) return this.error(res, 404, `Invalid URL (${req.method} ${req.url})`, null)
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const raw = Buffer.concat(chunks)
    const auth = req.headers.authorization ?? ''
    if (auth !== `Bearer ${this.keys[stage]}`) {
      const given = auth.startsWith('Bearer ') ? auth.slice(7) : ''
      return this.error(res, 401, given ? `Incorrect API key provided: ${maskedKey(given)}. You can find your API key at https://platform.openai.com/account/api-keys.` : 'You didn\'t provide an API key.', 'invalid_api_key')
    }
    let closed!: () => void
    const request: FakeRequest = { stage, body: {}, aborted: false, completed: false, closed: new Promise<void>((r) => (closed = r)) }
    res.on('close', () => {
      if (!res.writableFinished) request.aborted = true
      this.hanging.delete(res)
      closed()
    })
    try {
      if (stage === 'stt') await this.transcription(req, raw, request, res)
      else {
        const body = JSON.parse(raw.toString('utf8')) as unknown
        if (typeof body !== 'object' || body === null || Array.isArray(body)) return this.error(res, 400, 'The body must be a JSON object.', null)
        Object.assign(request, { body })
        const failure = this.failures.get(stage)
        this.failures.delete(stage)
        this.requests.push(request)
        if (failure === 'hang') return void this.hanging.add(res)
        if (failure === 'garbage') {
          res.writeHead(200, { 'content-type': stage === 'llm' ? 'text/event-stream' : 'audio/wav' })
          res.end(stage === 'llm' ? 'data: {"choices": [{"delta": {"content": "Hel\n\n' : 'this is not a RIFF file at all')
          return
        }
        if (failure) return this.error(res, failure.status, `Injected failure ${failure.status}.`, failure.code, 'server_error')
        if (stage === 'llm') await this.chat(request, res)
        else await this.speech(request, res)
      }
    } catch (e) {
      if (!res.headersSent) this.error(res, 400, `We could not parse the JSON body of your request. (${String(e)})`, null)
    }
  }

  private async transcription(req: IncomingMessage, raw: Buffer, request: FakeRequest, res: ServerResponse): Promise<void> {
    const type = req.headers['content-type'] ?? ''
    if (!type.startsWith('multipart/form-data')) return this.error(res, 400, 'Expected multipart/form-data.', null)
    // The platform's own multipart parser (undici's Request.formData), as the reference prescribes the encoding.
    const form = await new Request('http://fake/', { method: 'POST', headers: { 'content-type': type }, body: raw }).formData()
    const file = form.get('file')
    const model = form.get('model')
    if (!(file instanceof Blob)) return this.error(res, 400, "Missing required parameter: 'file'.", 'missing_required_parameter', 'invalid_request_error', 'file')
    if (typeof model !== 'string' || !model) return this.error(res, 400, "Missing required parameter: 'model'.", 'missing_required_parameter', 'invalid_request_error', 'model')
    const audio = parseWav(new Uint8Array(await file.arrayBuffer()))
    if (!audio) return this.error(res, 400, 'Audio file might be corrupted or unsupported', 'invalid_value', 'invalid_request_error', 'file')
    const format = form.get('response_format') ?? 'json'
    Object.assign(request, { body: { model, language: form.get('language'), response_format: format }, audio })
    const failure = this.failures.get('stt')
    this.failures.delete('stt')
    this.requests.push(request)
    if (failure === 'hang') return void this.hanging.add(res)
    if (failure === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' })
      return void res.end('{"text": ')
    }
    if (failure) return this.error(res, failure.status, `Injected failure ${failure.status}.`, failure.code, 'server_error')
    const text = this.script.transcripts[Math.min(this.counts.stt++, this.script.transcripts.length - 1)]!
    if (format === 'text') {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end(text)
    } else {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ text, usage: { type: 'duration', seconds: Math.ceil(audio.pcm.length / audio.rate) } }))
    }
    request.completed = true
  }

  private async chat(request: FakeRequest, res: ServerResponse): Promise<void> {
    const body = request.body
    const messages = body.messages
    if (typeof body.model !== 'string') return this.error(res, 400, "Missing required parameter: 'model'.", 'missing_required_parameter')
    const invalid = Array.isArray(messages) && messages.length > 0 ? invalidMessages(messages) : "Invalid value for 'messages'."
    if (invalid) return this.error(res, 400, invalid, 'invalid_value', 'invalid_request_error', 'messages')
    const offered = invalidTools(body.tools)
    if (typeof offered === 'string') return this.error(res, 400, offered, 'invalid_value', 'invalid_request_error', 'tools')
    if (body.stream !== true) return this.error(res, 400, 'This fake only streams: set stream to true.', 'invalid_value')
    const reply = this.script.replies[Math.min(this.counts.llm++, this.script.replies.length - 1)]!
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    const base = { id: `chatcmpl-${this.counts.llm}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model }
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`)
    if (typeof reply !== 'string') {
      for (const [index, call] of reply.toolCalls.entries()) {
        const safe = call.name.replace(/[^a-zA-Z0-9_-]/g, '_')
        const name = offered.find((n) => n === safe || n.endsWith(`_${safe}`)) ?? call.name
        const id = `call_${this.counts.llm}_${index}`
        chunk({ ...(index === 0 ? { role: 'assistant', content: null } : {}), tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] }, null)
        const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments)
        for (let at = 0; at < args.length; at += 7) {
          chunk({ tool_calls: [{ index, function: { arguments: args.slice(at, at + 7) } }] }, null)
          await new Promise((r) => setImmediate(r))
        }
      }
      chunk({}, 'tool_calls')
      res.end('data: [DONE]\n\n')
      request.completed = true
      return
    }
    chunk({ role: 'assistant', content: '' }, null)
    let sent = ''
    const hold = this.script.holdAfter
    this.releasedNow = false
    for (const word of reply.split(/(?<= )/)) {
      if (res.destroyed) return
      chunk({ content: word }, null)
      sent += word
      await new Promise((r) => setImmediate(r))
      if (hold && sent.trimEnd().endsWith(hold) && !this.releasedNow) {
        await new Promise<void>((resolve) => (this.release = resolve))
        this.release = null
      }
    }
    chunk({}, 'stop')
    res.end('data: [DONE]\n\n')
    request.completed = true
  }

  private async speech(request: FakeRequest, res: ServerResponse): Promise<void> {
    const { model, input, voice, response_format: format = 'mp3' } = request.body
    if (typeof model !== 'string' || typeof input !== 'string' || !input || typeof voice !== 'string') {
      return this.error(res, 400, "Missing required parameter: 'model', 'input' or 'voice'.", 'missing_required_parameter')
    }
    if (input.length > 4096) return this.error(res, 400, 'input is longer than 4096 characters.', 'invalid_value', 'invalid_request_error', 'input')
    if (format !== 'pcm' && format !== 'wav') return this.error(res, 400, `This fake answers pcm or wav only, not ${String(format)}.`, 'invalid_value', 'invalid_request_error', 'response_format')
    const samples = Math.round((input.length * MS_PER_CHAR * SPEECH_RATE) / 1000)
    const pcm = Buffer.alloc(samples * 2)
    for (let i = 0; i < samples; i++) pcm.writeInt16LE(Math.round(Math.sin((2 * Math.PI * this.script.hz * i) / SPEECH_RATE) * 0.3 * 32767), i * 2)
    const bytes = format === 'wav' ? Buffer.concat([wavHeader(pcm.length), pcm]) : pcm
    res.writeHead(200, { 'content-type': format === 'wav' ? 'audio/wav' : 'audio/pcm', 'transfer-encoding': 'chunked' })
    // Uneven chunks, odd sizes included, as a streaming server cuts them.
    const sizes = [4097, 12001, 999, 8192]
    for (let at = 0, k = 0; at < bytes.length; k++) {
      if (res.destroyed) return
      const size = sizes[k % sizes.length]!
      res.write(bytes.subarray(at, at + size))
      at += size
      await new Promise((r) => setImmediate(r))
    }
    res.end()
    request.completed = true
  }
}

const wavHeader = (dataBytes: number): Buffer => {
  const h = Buffer.alloc(44)
  h.write('RIFF', 0, 'ascii')
  h.writeUInt32LE(36 + dataBytes, 4)
  h.write('WAVE', 8, 'ascii')
  h.write('fmt ', 12, 'ascii')
  h.writeUInt32LE(16, 16)
  h.writeUInt16LE(1, 20)
  h.writeUInt16LE(1, 22)
  h.writeUInt32LE(SPEECH_RATE, 24)
  h.writeUInt32LE(SPEECH_RATE * 2, 28)
  h.writeUInt16LE(2, 32)
  h.writeUInt16LE(16, 34)
  h.write('data', 36, 'ascii')
  h.writeUInt32LE(dataBytes, 40)
  return h
}

/** A WAV file's 16-bit mono PCM and rate, or null when it is not one. */
const parseWav = (b: Uint8Array): { pcm: Int16Array; rate: number } | null => {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength)
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') return null
  let rate = 0
  for (let at = 12; at + 8 <= buf.length; ) {
    const id = buf.toString('ascii', at, at + 4)
    const size = buf.readUInt32LE(at + 4)
    if (id === 'fmt ') {
      if (buf.readUInt16LE(at + 8) !== 1 || buf.readUInt16LE(at + 10) !== 1 || buf.readUInt16LE(at + 22) !== 16) return null
      rate = buf.readUInt32LE(at + 12)
    } else if (id === 'data') {
      if (!rate) return null
      const n = Math.min(size, buf.length - at - 8) >> 1
      const pcm = new Int16Array(n)
      for (let i = 0; i < n; i++) pcm[i] = buf.readInt16LE(at + 8 + i * 2)
      return { pcm, rate }
    }
    at += 8 + size + (size & 1)
  }
  return null
}
