/**
 * The session half of the fake Realtime server (fakeRealtimeServer.ts): the GA `session` schema a
 * `session.update` is checked against — audio, turn detection, and the function tools
 * (`tools: [{type: "function", name, description, parameters}]`, `tool_choice`) — and the state
 * it is merged into.
 */

export const RATE = 24_000

/** `^[a-zA-Z0-9_-]{1,64}$`: a function tool's name. */
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/** `session.tools`, as the GA schema has them (function tools only: MCP tools are out of this fake's scope). */
const checkTools = (tools: unknown): unknown[] => {
  if (!Array.isArray(tools) || tools.length > 128) throw new ProtocolError('invalid_type', "Invalid type for 'session.tools': expected an array.", 'session.tools')
  return tools.map((t, i) => {
    const path = `session.tools[${i}]`
    const tool = checkFields(t, new Set(['type', 'name', 'description', 'parameters']), path)
    if (tool.type !== 'function') throw new ProtocolError('invalid_value', `Invalid value for '${path}.type': expected 'function'.`, `${path}.type`)
    if (typeof tool.name !== 'string' || !FUNCTION_NAME.test(tool.name)) throw new ProtocolError('invalid_value', `Invalid '${path}.name': string does not match pattern.`, `${path}.name`)
    if (tool.description !== undefined && typeof tool.description !== 'string') throw new ProtocolError('invalid_type', `Invalid type for '${path}.description'.`, `${path}.description`)
    if (tool.parameters !== undefined && !isObject(tool.parameters)) throw new ProtocolError('invalid_type', `Invalid type for '${path}.parameters'.`, `${path}.parameters`)
    return tool
  })
}

/** GA session fields; anything else at the top of `session` is refused. */
const SESSION_FIELDS = new Set([
  'type', 'model', 'instructions', 'output_modalities', 'audio', 'include', 'max_output_tokens', 'tool_choice',
  'tools', 'tracing', 'truncation', 'prompt',
])
const INPUT_FIELDS = new Set(['format', 'transcription', 'noise_reduction', 'turn_detection'])
const OUTPUT_FIELDS = new Set(['format', 'voice', 'speed'])
const SERVER_VAD_FIELDS = new Set(['type', 'threshold', 'prefix_padding_ms', 'silence_duration_ms', 'idle_timeout_ms', 'create_response', 'interrupt_response'])
const SEMANTIC_VAD_FIELDS = new Set(['type', 'eagerness', 'create_response', 'interrupt_response'])
const TRANSCRIPTION_FIELDS = new Set(['model', 'language', 'prompt'])

interface TurnDetection {
  type: 'server_vad' | 'semantic_vad'
  threshold: number
  prefix_padding_ms: number
  silence_duration_ms: number
  idle_timeout_ms: number | null
  create_response: boolean
  interrupt_response: boolean
}

export interface SessionState {
  type: 'realtime'
  object: 'realtime.session'
  id: string
  model: string
  instructions: string
  output_modalities: string[]
  audio: {
    input: { format: { type: string; rate?: number }; transcription: { model: string } | null; noise_reduction: unknown; turn_detection: TurnDetection | null }
    output: { format: { type: string; rate?: number }; voice: unknown; speed: number }
  }
  tools: unknown[]
  tool_choice: unknown
  max_output_tokens: number | 'inf'
  tracing: unknown
  expires_at: number
}

export interface Item {
  readonly type?: 'message' | 'function_call'
  /** function_call items: the call's id, name and arguments. */
  readonly call?: { readonly call_id: string; readonly name: string; readonly arguments: string }
  readonly id: string
  readonly role: 'user' | 'assistant'
  /** Samples delivered (assistant) or committed (user). */
  samples: number
  transcript: string
}

export class ProtocolError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message)
  }
}

export const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u)

const checkFields = (value: unknown, allowed: ReadonlySet<string>, path: string): Record<string, unknown> => {
  if (!isObject(value)) throw new ProtocolError('invalid_type', `Invalid type for '${path}': expected an object.`, path)
  for (const k of Object.keys(value)) {
    if (!allowed.has(k)) throw new ProtocolError('unknown_parameter', `Unknown parameter: '${path}.${k}'.`, `${path}.${k}`)
  }
  return value
}

const checkFormat = (format: unknown, path: string): { type: string; rate?: number } => {
  const f = checkFields(format, new Set(['type', 'rate']), path)
  if (f.type === 'audio/pcm') {
    if (f.rate !== undefined && f.rate !== RATE) {
      throw new ProtocolError('invalid_value', `Invalid value: ${String(f.rate)}. Supported values are: 24000.`, `${path}.rate`)
    }
    return { type: 'audio/pcm', rate: RATE }
  }
  if (f.type === 'audio/pcmu' || f.type === 'audio/pcma') {
    if (f.rate !== undefined) throw new ProtocolError('unknown_parameter', `Unknown parameter: '${path}.rate'.`, `${path}.rate`)
    return { type: f.type }
  }
  throw new ProtocolError('invalid_value', `Invalid value: '${String(f.type)}'. Supported values are: 'audio/pcm', 'audio/pcmu' and 'audio/pcma'.`, `${path}.type`)
}

const number = (v: unknown, path: string, min: number, max: number): number => {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) {
    throw new ProtocolError('invalid_value', `Invalid value for '${path}': expected a number from ${min} to ${max}.`, path)
  }
  return v
}

const bool = (v: unknown, path: string): boolean => {
  if (typeof v !== 'boolean') throw new ProtocolError('invalid_type', `Invalid type for '${path}': expected a boolean.`, path)
  return v
}

/** `session` of a `session.update`, checked against the GA schema and merged over `current`. */
export const applySessionUpdate = (current: SessionState, raw: unknown): SessionState => {
  const s = checkFields(raw, SESSION_FIELDS, 'session')
  if (s.type !== 'realtime') throw new ProtocolError('invalid_value', "Invalid value for 'session.type': expected 'realtime'.", 'session.type')
  const next: SessionState = structuredClone(current)
  if (s.model !== undefined) {
    if (typeof s.model !== 'string' || s.model.length === 0) throw new ProtocolError('invalid_value', "Invalid value for 'session.model'.", 'session.model')
    next.model = s.model
  }
  if (s.instructions !== undefined) {
    if (typeof s.instructions !== 'string') throw new ProtocolError('invalid_type', "Invalid type for 'session.instructions'.", 'session.instructions')
    next.instructions = s.instructions
  }
  if (s.output_modalities !== undefined) {
    const m = s.output_modalities
    if (!Array.isArray(m) || m.length !== 1 || (m[0] !== 'audio' && m[0] !== 'text')) {
      throw new ProtocolError('invalid_value', "Invalid value for 'session.output_modalities': ['audio'] or ['text'].", 'session.output_modalities')
    }
    next.output_modalities = [m[0]]
  }
  if (s.max_output_tokens !== undefined) {
    next.max_output_tokens = s.max_output_tokens === 'inf' ? 'inf' : number(s.max_output_tokens, 'session.max_output_tokens', 1, 4096)
  }
  if (s.tools !== undefined) next.tools = checkTools(s.tools)
  if (s.tool_choice !== undefined) {
    if (s.tool_choice !== 'auto' && s.tool_choice !== 'none' && s.tool_choice !== 'required' && !isObject(s.tool_choice)) {
      throw new ProtocolError('invalid_value', "Invalid value for 'session.tool_choice'.", 'session.tool_choice')
    }
    next.tool_choice = s.tool_choice
  }
  if (s.audio !== undefined) {
    const audio = checkFields(s.audio, new Set(['input', 'output']), 'session.audio')
    if (audio.input !== undefined) {
      const input = checkFields(audio.input, INPUT_FIELDS, 'session.audio.input')
      if (input.format !== undefined) next.audio.input.format = checkFormat(input.format, 'session.audio.input.format')
      if (input.transcription !== undefined) {
        if (input.transcription === null) next.audio.input.transcription = null
        else {
          const t = checkFields(input.transcription, TRANSCRIPTION_FIELDS, 'session.audio.input.transcription')
          if (typeof t.model !== 'string') throw new ProtocolError('invalid_value', "Invalid value for 'session.audio.input.transcription.model'.", 'session.audio.input.transcription.model')
          next.audio.input.transcription = { model: t.model }
        }
      }
      if (input.noise_reduction !== undefined) next.audio.input.noise_reduction = input.noise_reduction
      if (input.turn_detection !== undefined) {
        if (input.turn_detection === null) next.audio.input.turn_detection = null
        else {
          const path = 'session.audio.input.turn_detection'
          const td = isObject(input.turn_detection) ? input.turn_detection : {}
          const fields = td.type === 'semantic_vad' ? SEMANTIC_VAD_FIELDS : SERVER_VAD_FIELDS
          checkFields(input.turn_detection, fields, path)
          if (td.type !== 'server_vad' && td.type !== 'semantic_vad') throw new ProtocolError('invalid_value', `Invalid value for '${path}.type'.`, `${path}.type`)
          const base: TurnDetection = next.audio.input.turn_detection ?? defaultTurnDetection()
          next.audio.input.turn_detection = {
            ...base,
            type: td.type,
            ...(td.threshold !== undefined ? { threshold: number(td.threshold, `${path}.threshold`, 0, 1) } : {}),
            ...(td.prefix_padding_ms !== undefined ? { prefix_padding_ms: number(td.prefix_padding_ms, `${path}.prefix_padding_ms`, 0, 10_000) } : {}),
            ...(td.silence_duration_ms !== undefined ? { silence_duration_ms: number(td.silence_duration_ms, `${path}.silence_duration_ms`, 0, 10_000) } : {}),
            ...(td.create_response !== undefined ? { create_response: bool(td.create_response, `${path}.create_response`) } : {}),
            ...(td.interrupt_response !== undefined ? { interrupt_response: bool(td.interrupt_response, `${path}.interrupt_response`) } : {}),
          }
        }
      }
    }
    if (audio.output !== undefined) {
      const output = checkFields(audio.output, OUTPUT_FIELDS, 'session.audio.output')
      if (output.format !== undefined) next.audio.output.format = checkFormat(output.format, 'session.audio.output.format')
      if (output.voice !== undefined) next.audio.output.voice = output.voice
      if (output.speed !== undefined) next.audio.output.speed = number(output.speed, 'session.audio.output.speed', 0.25, 1.5)
    }
  }
  return next
}

export const defaultTurnDetection = (): TurnDetection => ({
  type: 'server_vad',
  threshold: 0.5,
  prefix_padding_ms: 300,
  silence_duration_ms: 500,
  idle_timeout_ms: null,
  create_response: true,
  interrupt_response: true,
})

