/**
 * A local stand-in for the OpenAI Realtime API (the one allowed mock: a third-party cloud),
 * written from the published GA contract (the client/server event reference and the SDK's
 * realtime types), not from our provider. A real `ws` server on 127.0.0.1 that is as strict as
 * the real one where our client could go wrong:
 *
 * - Handshake: `/v1/realtime?model=…`; no `Authorization` is an HTTP 401; a wrong key is accepted
 *   at the upgrade, then refused with an `error` (`invalid_api_key`, the key shown masked) and
 *   close 3000; the beta protocol's `OpenAI-Beta` header gets an `error` and close 4000.
 * - `session.update` is checked against the GA session schema: beta fields (`modalities`,
 *   `input_audio_format`, `turn_detection` at the top, …) and unknown fields are refused with an
 *   `unknown_parameter` error, a PCM rate other than 24000 with `invalid_value`; a valid one is
 *   merged and answered with `session.updated` holding the whole effective session.
 * - Input: appended 24 kHz audio runs through an energy VAD using the session's `threshold` and
 *   `silence_duration_ms`; it sends `speech_started` / `speech_stopped` / `committed` /
 *   `conversation.item.added|done`, the input transcription when configured, and honours
 *   `interrupt_response` (cancels the reply in progress itself, reason `turn_detected`) and
 *   `create_response`.
 * - Output: the full GA sequence (`response.created`, `response.output_item.added`,
 *   `conversation.item.added`, `response.content_part.added`, interleaved
 *   `response.output_audio_transcript.delta` and `response.output_audio.delta` of varying sizes,
 *   faster than real time, then the `.done` events, `response.done`, `rate_limits.updated`).
 *   A cancel ends a reply with `output_audio.done`, the partial transcript, and `response.done`
 *   `cancelled` with `status_details`. A reply may fail or end incomplete on request.
 * - `response.cancel` without an active reply, a `conversation.item.truncate` past the item's
 *   audio (which, as on the real server, is 85 ms shorter than the bytes delivered), of an item
 *   without audio, of a non-assistant item or of an unknown item: `error` events naming the
 *   client's `event_id`.
 * - The test can close a session with any code, or drop it.
 */
import type { AddressInfo } from 'node:net'
import type { IncomingMessage } from 'node:http'
import { WebSocketServer, type WebSocket } from 'ws'
import { Inbox } from '../../../core/test/helpers.js'
import { applySessionUpdate, defaultTurnDetection, isObject, ProtocolError, RATE, type Item, type SessionState } from './fakeSession.js'

export { RATE }

export interface FakeReply {
  /** Length of the reply's audio (a tone). */
  readonly audioMs: number
  readonly transcript: string
  /** Pitch of the reply's tone (at 24 kHz). */
  readonly hz?: number
  /** How much faster than real time the deltas are sent (default 4). */
  readonly speed?: number
  /** Time before the first audio (the model's latency; default 0). */
  readonly firstAudioAfterMs?: number
  /** End the reply `failed` (no audio), or `incomplete` after half of its audio. */
  readonly outcome?: 'completed' | { readonly failed: { readonly type: string; readonly code: string } } | { readonly incomplete: 'content_filter' | 'max_output_tokens' }
  /**
   * Instead of speaking, call these functions, as the real server does: per call a `function_call`
   * output item, `response.function_call_arguments.delta`s then `.done`, and `response.done` with
   * the calls as its output. `name` is matched against the session's tools as a model picks one
   * (the tool whose API-safe name ends with it), else used as is.
   */
  readonly toolCalls?: ReadonlyArray<{ readonly name: string; readonly arguments: Readonly<Record<string, unknown>> }>
}

export interface ClientEvent {
  readonly type: string
  readonly event_id?: string
  readonly [key: string]: unknown
}

export interface ServerEventSent {
  readonly type: string
  readonly [key: string]: unknown
}

/** The real server's assistant item holds about this much less audio than it delivered. */
export const ITEM_SHORTFALL_MS = 85

/** How the real server shows a key it refuses: its start and its last four characters. */
export const maskedKey = (key: string): string => `${key.slice(0, 3)}${'*'.repeat(Math.max(4, key.length - 7))}${key.slice(-4)}`

/** `response` of a `response.create` (GA RealtimeResponseCreateParams), as far as the fake reads it. */
export interface ResponseParams {
  readonly instructions?: string
  readonly tool_choice?: unknown
}

const RESPONSE_FIELDS = new Set(['audio', 'conversation', 'input', 'instructions', 'max_output_tokens', 'metadata', 'output_modalities', 'prompt', 'tool_choice', 'tools'])

/** A `response.create`'s `response`, checked against the GA fields: an unknown one is refused as the server does. */
const responseParams = (response: unknown): ResponseParams | null => {
  if (response === undefined) return null
  if (!isObject(response)) throw new ProtocolError('invalid_type', "Invalid type for 'response': expected an object.", 'response')
  const unknown = Object.keys(response).find((k) => !RESPONSE_FIELDS.has(k))
  if (unknown !== undefined) throw new ProtocolError('unknown_parameter', `Unknown parameter: 'response.${unknown}'.`, `response.${unknown}`)
  if (response.instructions !== undefined && typeof response.instructions !== 'string') {
    throw new ProtocolError('invalid_type', "Invalid type for 'response.instructions': expected a string.", 'response.instructions')
  }
  if (response.tool_choice !== undefined && !['none', 'auto', 'required'].includes(String(response.tool_choice)) && !isObject(response.tool_choice)) {
    throw new ProtocolError('invalid_value', "Invalid value for 'response.tool_choice'.", 'response.tool_choice')
  }
  return response as ResponseParams
}

export class FakeRealtimeServer {
  /** Every client event, in order, across connections. */
  readonly received = new Inbox<ClientEvent>()
  /** Every server event sent, in order, across connections. */
  readonly sent = new Inbox<ServerEventSent>()
  /** The effective session of each connection after its session.update (reconnects add one). */
  readonly sessions: SessionState[] = []
  /** Every `function_call_output` item a client created, with the call it answers. */
  readonly functionOutputs = new Inbox<{ readonly call_id: string; readonly name: string; readonly output: string }>()
  /** Every input sample appended, at 24 kHz, in order (for checking pitch). */
  private input: Int16Array[] = []
  appendedSamples = 0
  connections = 0
  /** How much less audio an assistant item holds than was delivered (the real server: ~85 ms). */
  itemShortfallMs = ITEM_SHORTFALL_MS
  private readonly wss: WebSocketServer
  private turn = 0
  private readonly stoppers = new Set<() => void>()

  private constructor(
    wss: WebSocketServer,
    private readonly apiKey: string,
    private readonly reply: (turn: number, response: ResponseParams | null) => FakeReply,
  ) {
    this.wss = wss
    wss.on('connection', (ws, req) => this.serve(ws, req))
  }

  static async start(apiKey: string, reply: (turn: number, response: ResponseParams | null) => FakeReply): Promise<FakeRealtimeServer> {
    const wss = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      verifyClient: (info, cb) => {
        if (!info.req.url?.startsWith('/v1/realtime?model=')) return cb(false, 404)
        if (!info.req.headers.authorization?.startsWith('Bearer ')) return cb(false, 401)
        cb(true)
      },
    })
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()))
    return new FakeRealtimeServer(wss, apiKey, reply)
  }

  get baseUrl(): string {
    return `ws://127.0.0.1:${(this.wss.address() as AddressInfo).port}/v1`
  }

  /** The input audio appended so far, joined (24 kHz). */
  inputAudio(): Int16Array {
    const out = new Int16Array(this.input.reduce((n, p) => n + p.length, 0))
    let at = 0
    for (const p of this.input) {
      out.set(p, at)
      at += p.length
    }
    return out
  }

  /** Errors this server sent, by code. */
  errorCodes(): string[] {
    return this.sent.items.filter((e) => e.type === 'error').map((e) => String((e.error as { code?: string }).code))
  }

  /** Drop every connection without a close frame (the cloud went away). */
  dropAll(): void {
    for (const ws of this.wss.clients) ws.terminate()
  }

  /** Close every session with `code` (1001 is how the real server ends a session at its time limit). */
  closeAll(code: number, reason = ''): void {
    for (const ws of this.wss.clients) ws.close(code, reason)
  }

  async stop(): Promise<void> {
    for (const stop of this.stoppers) stop()
    this.dropAll()
    await new Promise<void>((resolve) => this.wss.close(() => resolve()))
  }

  private serve(ws: WebSocket, req: IncomingMessage): void {
    this.connections++
    let seq = 0
    const send = (event: Record<string, unknown>) => {
      if (ws.readyState !== ws.OPEN) return
      const full = { event_id: `event_${this.connections}_${++seq}`, ...event } as unknown as ServerEventSent
      this.sent.push(full)
      ws.send(JSON.stringify(full))
    }
    const error = (code: string, message: string, param: string | null, eventId: string | undefined, type = 'invalid_request_error') =>
      send({ type: 'error', error: { type, code, message, param, event_id: eventId ?? null } })

    if (req.headers['openai-beta'] !== undefined) {
      error('beta_api_shape_not_supported', 'The OpenAI-Beta header selects the beta protocol, which this GA endpoint does not speak.', null, undefined)
      ws.close(4000, 'invalid_request_error.beta_api_shape_not_supported')
      return
    }
    const key = req.headers.authorization!.slice('Bearer '.length)
    if (key !== this.apiKey) {
      error('invalid_api_key', `Incorrect API key provided: ${maskedKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`, null, undefined)
      ws.close(3000, 'invalid_request_error.invalid_api_key')
      return
    }

    const model = new URL(req.url!, 'http://x').searchParams.get('model') ?? 'gpt-realtime'
    let session: SessionState = {
      type: 'realtime',
      object: 'realtime.session',
      id: `sess_${this.connections}`,
      model,
      instructions: 'Default instructions.',
      output_modalities: ['audio'],
      audio: {
        input: { format: { type: 'audio/pcm', rate: RATE }, transcription: null, noise_reduction: null, turn_detection: defaultTurnDetection() },
        output: { format: { type: 'audio/pcm', rate: RATE }, voice: 'alloy', speed: 1 },
      },
      tools: [],
      tool_choice: 'auto',
      max_output_tokens: 'inf',
      tracing: null,
      expires_at: Math.floor(Date.now() / 1000) + 3600,
    }
    let sessionIndex = -1
    const items = new Map<string, Item>()
    let lastItemId: string | null = null
    let itemSeq = 0
    const nextItemId = () => `item_${this.connections}_${++itemSeq}`

    // Input VAD state, on the input timeline (ms of audio appended).
    let inputMs = 0
    let inSpeech = false
    let silentMs = 0
    let speechItem: string | null = null
    let speechSamples = 0
    let pending = new Int16Array(0)

    interface Streaming {
      readonly id: string
      readonly item: Item
      readonly words: string[]
      wordsSent: number
      timer?: NodeJS.Timeout
      finish(status: 'completed' | 'cancelled' | 'incomplete', details: Record<string, unknown> | null): void
    }
    let streaming: Streaming | null = null
    const stopTimers = () => {
      if (streaming?.timer) clearTimeout(streaming.timer)
    }
    this.stoppers.add(stopTimers)
    ws.on('close', () => {
      stopTimers()
      this.stoppers.delete(stopTimers)
    })

    const respond = (params: ResponseParams | null = null) => {
      const n = ++this.turn
      const spec = this.reply(n, params)
      const id = `resp_${n}`
      const item: Item = { id: nextItemId(), role: 'assistant', samples: 0, transcript: '' }
      items.set(item.id, item)
      const base = { object: 'realtime.response', conversation_id: 'conv_1', output_modalities: session.output_modalities, max_output_tokens: session.max_output_tokens, audio: { output: session.audio.output }, metadata: null }
      send({ type: 'response.created', response: { id, ...base, status: 'in_progress', status_details: null, output: [], usage: null } })
      if (spec.toolCalls) {
        items.delete(item.id)
        const output = spec.toolCalls.map((call, index) => {
          const safe = call.name.replace(/[^a-zA-Z0-9_-]/g, '_')
          const offered = session.tools.map((t) => String((t as { name?: unknown }).name))
          const name = offered.find((n) => n === safe || n.endsWith(`_${safe}`)) ?? call.name
          const fc: Item = { id: nextItemId(), role: 'assistant', type: 'function_call', samples: 0, transcript: '', call: { call_id: `call_${n}_${index}`, name, arguments: JSON.stringify(call.arguments) } }
          items.set(fc.id, fc)
          const itemOf = (status: string, args: string) => ({ id: fc.id, object: 'realtime.item', type: 'function_call', status, name, call_id: fc.call!.call_id, arguments: args })
          const at = { response_id: id, item_id: fc.id, output_index: index, call_id: fc.call!.call_id }
          send({ type: 'response.output_item.added', response_id: id, output_index: index, item: itemOf('in_progress', '') })
          send({ type: 'conversation.item.added', previous_item_id: lastItemId, item: itemOf('in_progress', '') })
          lastItemId = fc.id
          for (let k = 0; k < fc.call!.arguments.length; k += 6) send({ type: 'response.function_call_arguments.delta', ...at, delta: fc.call!.arguments.slice(k, k + 6) })
          send({ type: 'response.function_call_arguments.done', ...at, name, arguments: fc.call!.arguments })
          send({ type: 'response.output_item.done', response_id: id, output_index: index, item: itemOf('completed', fc.call!.arguments) })
          send({ type: 'conversation.item.done', previous_item_id: null, item: itemOf('completed', fc.call!.arguments) })
          return itemOf('completed', fc.call!.arguments)
        })
        send({ type: 'response.done', response: { id, ...base, status: 'completed', status_details: null, output, usage: { total_tokens: 10, input_tokens: 5, output_tokens: 5 } } })
        return
      }
      const outcome = spec.outcome ?? 'completed'
      if (typeof outcome === 'object' && 'failed' in outcome) {
        items.delete(item.id)
        send({ type: 'response.done', response: { id, ...base, status: 'failed', status_details: { type: 'failed', error: outcome.failed }, output: [], usage: null } })
        return
      }
      const messageItem = (status: string) => ({ id: item.id, object: 'realtime.item', type: 'message', role: 'assistant', status, content: status === 'in_progress' ? [] : [{ type: 'output_audio', transcript: item.transcript }] })
      const at = { response_id: id, item_id: item.id, output_index: 0 }
      send({ type: 'response.output_item.added', response_id: id, output_index: 0, item: messageItem('in_progress') })
      send({ type: 'conversation.item.added', previous_item_id: lastItemId, item: messageItem('in_progress') })
      lastItemId = item.id
      send({ type: 'response.content_part.added', ...at, content_index: 0, part: { type: 'audio', transcript: '' } })

      const total = Math.round((spec.audioMs / 1000) * RATE)
      const stopAt = typeof outcome === 'object' && 'incomplete' in outcome ? Math.round(total / 2) : total
      const hz = spec.hz ?? 330
      const speed = spec.speed ?? 4
      const s: Streaming = {
        id,
        item,
        words: spec.transcript.split(' '),
        wordsSent: 0,
        finish: (status, details) => {
          if (s.timer) clearTimeout(s.timer)
          streaming = null
          send({ type: 'response.output_audio.done', ...at, content_index: 0 })
          send({ type: 'response.output_audio_transcript.done', ...at, content_index: 0, transcript: item.transcript })
          send({ type: 'response.content_part.done', ...at, content_index: 0, part: { type: 'audio', transcript: item.transcript } })
          const itemStatus = status === 'completed' ? 'completed' : 'incomplete'
          send({ type: 'response.output_item.done', response_id: id, output_index: 0, item: messageItem(itemStatus) })
          send({ type: 'conversation.item.done', previous_item_id: null, item: messageItem(itemStatus) })
          send({
            type: 'response.done',
            response: { id, ...base, status, status_details: details, output: [messageItem(itemStatus)], usage: { total_tokens: 10, input_tokens: 5, output_tokens: 5 } },
          })
          send({ type: 'rate_limits.updated', rate_limits: [{ name: 'tokens', limit: 1000, remaining: 990, reset_seconds: 1 }] })
        },
      }
      streaming = s
      // Deltas of varying size (never a multiple of 20 ms), sent faster than real time.
      const sizes = [1234, 3600, 517, 2400, 4801, 960]
      let k = 0
      const step = () => {
        if (streaming !== s) return
        const size = Math.min(sizes[k++ % sizes.length]!, stopAt - item.samples)
        if (size > 0) {
          const pcm = new Int16Array(size)
          for (let i = 0; i < size; i++) pcm[i] = Math.round(Math.sin((2 * Math.PI * hz * (item.samples + i)) / RATE) * 0.3 * 32767)
          // The transcript runs ahead of the audio, as the real server's does.
          const due = Math.min(s.words.length, Math.ceil(((item.samples + size) / total) * s.words.length) + 1)
          while (s.wordsSent < due) {
            const delta = (s.wordsSent === 0 ? '' : ' ') + s.words[s.wordsSent++]
            item.transcript += delta
            send({ type: 'response.output_audio_transcript.delta', ...at, content_index: 0, delta })
          }
          item.samples += size
          send({ type: 'response.output_audio.delta', ...at, content_index: 0, delta: Buffer.from(pcm.buffer).toString('base64') })
        }
        if (item.samples >= stopAt) {
          if (stopAt < total) s.finish('incomplete', { type: 'incomplete', reason: (outcome as { incomplete: string }).incomplete })
          else s.finish('completed', null)
          return
        }
        s.timer = setTimeout(step, ((size / RATE) * 1000) / speed)
      }
      if (spec.firstAudioAfterMs) s.timer = setTimeout(step, spec.firstAudioAfterMs)
      else step()
    }

    const cancel = (reason: 'client_cancelled' | 'turn_detected') => streaming?.finish('cancelled', { type: 'cancelled', reason })

    const hear = (pcm: Int16Array) => {
      const turnDetection = session.audio.input.turn_detection
      const joined = new Int16Array(pending.length + pcm.length)
      joined.set(pending)
      joined.set(pcm, pending.length)
      const chunk = RATE / 50 // 20 ms
      let at = 0
      for (; at + chunk <= joined.length; at += chunk) {
        inputMs += 20
        if (inSpeech) speechSamples += chunk
        if (!turnDetection) continue
        let sum = 0
        for (let i = at; i < at + chunk; i++) sum += joined[i]! * joined[i]!
        // threshold 0.5 (the default) maps to an RMS of 2% of full scale.
        const voiced = Math.sqrt(sum / chunk) / 32768 > turnDetection.threshold * 0.04
        if (voiced && !inSpeech) {
          inSpeech = true
          silentMs = 0
          speechItem = nextItemId()
          speechSamples = chunk
          send({ type: 'input_audio_buffer.speech_started', audio_start_ms: Math.max(0, inputMs - 20 - turnDetection.prefix_padding_ms), item_id: speechItem })
          if (turnDetection.interrupt_response && streaming) cancel('turn_detected')
        } else if (inSpeech) {
          silentMs = voiced ? 0 : silentMs + 20
          if (silentMs >= turnDetection.silence_duration_ms) {
            inSpeech = false
            const id = speechItem!
            send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: inputMs, item_id: id })
            const user: Item = { id, role: 'user', samples: speechSamples, transcript: '' }
            items.set(id, user)
            send({ type: 'input_audio_buffer.committed', previous_item_id: lastItemId, item_id: id })
            const userItem = { id, object: 'realtime.item', type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_audio', transcript: null }] }
            send({ type: 'conversation.item.added', previous_item_id: lastItemId, item: userItem })
            send({ type: 'conversation.item.done', previous_item_id: lastItemId, item: userItem })
            lastItemId = id
            if (session.audio.input.transcription) {
              send({ type: 'conversation.item.input_audio_transcription.completed', item_id: id, content_index: 0, transcript: `user turn ${this.turn + 1}`, usage: { type: 'duration', seconds: speechSamples / RATE } })
            }
            if (turnDetection.create_response && !streaming) respond()
          }
        }
      }
      pending = joined.slice(at)
    }

    send({ type: 'session.created', session })

    ws.on('message', (data, isBinary) => {
      let event: ClientEvent
      try {
        if (isBinary) throw new Error('binary')
        const parsed = JSON.parse(String(data)) as unknown
        if (!isObject(parsed) || typeof parsed.type !== 'string') throw new Error('no type')
        event = parsed as ClientEvent
      } catch {
        error('invalid_json', 'The server could not parse the event as JSON with a type.', null, undefined)
        return
      }
      this.received.push(event)
      try {
        switch (event.type) {
          case 'session.update': {
            session = applySessionUpdate(session, event.session)
            if (sessionIndex < 0) sessionIndex = this.sessions.push(session) - 1
            else this.sessions[sessionIndex] = session
            send({ type: 'session.updated', session })
            return
          }
          case 'input_audio_buffer.append': {
            if (typeof event.audio !== 'string') throw new ProtocolError('missing_required_parameter', "Missing required parameter: 'audio'.", 'audio')
            const bytes = Buffer.from(event.audio, 'base64')
            if (bytes.length % 2 !== 0) throw new ProtocolError('invalid_value', 'Audio is not 16-bit PCM.', 'audio')
            const pcm = new Int16Array(bytes.length >> 1)
            for (let i = 0; i < pcm.length; i++) pcm[i] = bytes.readInt16LE(i * 2)
            this.appendedSamples += pcm.length
            this.input.push(pcm)
            hear(pcm)
            return
          }
          case 'response.cancel': {
            const wanted = event.response_id
            if (!streaming || (wanted !== undefined && wanted !== streaming.id)) {
              throw new ProtocolError('response_cancel_not_active', 'Cancellation failed: no active response found.')
            }
            cancel('client_cancelled')
            return
          }
          case 'response.create': {
            if (streaming) throw new ProtocolError('conversation_already_has_active_response', 'Conversation already has an active response in progress.')
            respond(responseParams(event.response))
            return
          }
          case 'conversation.item.truncate': {
            const item = typeof event.item_id === 'string' ? items.get(event.item_id) : undefined
            if (!item) throw new ProtocolError('item_not_found', `Item with item_id not found: ${String(event.item_id)}.`, 'item_id')
            if (item.role !== 'assistant') throw new ProtocolError('invalid_value', 'Only assistant message items can be truncated.', 'item_id')
            if (event.content_index !== 0) throw new ProtocolError('invalid_value', 'Invalid content_index.', 'content_index')
            const end = event.audio_end_ms
            if (typeof end !== 'number' || !Number.isInteger(end) || end < 0) throw new ProtocolError('invalid_value', 'Invalid audio_end_ms.', 'audio_end_ms')
            const audioMs = Math.max(0, Math.floor((item.samples / RATE) * 1000) - this.itemShortfallMs)
            if (item.samples === 0) throw new ProtocolError('invalid_value', 'The item has no audio to truncate.', 'item_id')
            if (end > audioMs) throw new ProtocolError('invalid_value', `Audio content of ${audioMs}ms is already shorter than ${end}ms.`, 'audio_end_ms')
            item.transcript = ''
            send({ type: 'conversation.item.truncated', item_id: item.id, content_index: 0, audio_end_ms: end })
            return
          }
          case 'conversation.item.create': {
            const item = isObject(event.item) ? event.item : null
            if (!item || item.type !== 'function_call_output') throw new ProtocolError('invalid_value', "This fake creates 'function_call_output' items only.", 'item.type')
            if (typeof item.output !== 'string') throw new ProtocolError('invalid_type', "Invalid type for 'item.output': expected a string.", 'item.output')
            const call = [...items.values()].find((i) => i.call?.call_id === item.call_id)?.call
            if (!call) throw new ProtocolError('invalid_value', `No function call with call_id ${String(item.call_id)} in the conversation.`, 'item.call_id')
            const created = { id: nextItemId(), object: 'realtime.item', type: 'function_call_output', status: 'completed', call_id: call.call_id, output: item.output }
            send({ type: 'conversation.item.added', previous_item_id: lastItemId, item: created })
            send({ type: 'conversation.item.done', previous_item_id: lastItemId, item: created })
            lastItemId = created.id
            this.functionOutputs.push({ call_id: call.call_id, name: call.name, output: item.output })
            return
          }
          case 'conversation.item.delete': {
            const id = typeof event.item_id === 'string' ? event.item_id : ''
            if (!items.delete(id)) throw new ProtocolError('item_not_found', `Item with item_id not found: ${id}.`, 'item_id')
            send({ type: 'conversation.item.deleted', item_id: id })
            return
          }
          default:
            throw new ProtocolError('invalid_value', `Invalid value: '${event.type}'. Supported values are the GA client events.`, 'type')
        }
      } catch (e) {
        if (!(e instanceof ProtocolError)) throw e
        error(e.code, e.message, e.param, event.event_id)
      }
    })
  }
}
