/**
 * The `chat` brain of a local agent: an OpenAI-compatible `POST /chat/completions` (the
 * operator's llama.cpp server, Ollama or vLLM, named in `agents.local.chat`), given the tools the
 * agent may call (its `tools` permissions) as functions. The model's calls are carried out by the
 * agent's ToolRunner (permission, arguments checked against the tool's schema, timeout, result
 * size, the room's `tool_call` event) and the results sent back, for at most `maxToolRounds`
 * rounds; the model's last text is the reply.
 * One request per round, not streamed: local models answer a voice turn in one short message,
 * and the reply is still spoken sentence by sentence.
 */
import type { ModelFunction, ToolRunner } from '../../core/provider.js'

export interface ChatEndpoint {
  readonly baseUrl: string
  readonly apiKey: string | null
  readonly model: string
  readonly timeoutMs: number
}

export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string }

interface ToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

export class ChatError extends Error {
  override readonly name = 'ChatError'
}

const complete = async (ep: ChatEndpoint, messages: ChatMessage[], functions: ReadonlyArray<ModelFunction>, signal: AbortSignal) => {
  const body = {
    model: ep.model,
    messages,
    ...(functions.length > 0 ? { tools: functions.map((f) => ({ type: 'function', function: f })) } : {}),
  }
  let res: Response
  try {
    res = await fetch(`${ep.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(ep.apiKey ? { Authorization: `Bearer ${ep.apiKey}` } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.any([signal, AbortSignal.timeout(ep.timeoutMs)]),
    })
  } catch (e) {
    if (signal.aborted) throw e
    throw new ChatError((e as Error).name === 'TimeoutError' ? 'chat model timed out' : 'chat model unreachable')
  }
  if (!res.ok) throw new ChatError(`chat model answered HTTP ${res.status}`)
  const json = (await res.json().catch(() => null)) as { choices?: Array<{ message?: { content?: unknown; tool_calls?: unknown } }> } | null
  const message = json?.choices?.[0]?.message
  if (!message) throw new ChatError('chat model answered no message')
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as ToolCall[]).filter((c) => c?.type === 'function' && typeof c.function?.name === 'string') : []
  return { content: typeof message.content === 'string' ? message.content : null, calls }
}

/**
 * One turn: `history` (system and earlier turns) plus the user's words; returns the reply text
 * and the messages to keep. Tool results go back to the model as it asked for them.
 */
export const chatTurn = async (
  ep: ChatEndpoint,
  history: ReadonlyArray<ChatMessage>,
  said: string,
  tools: ToolRunner,
  maxToolRounds: number,
  signal: AbortSignal,
): Promise<{ reply: string; messages: ChatMessage[] }> => {
  const turn: ChatMessage[] = [{ role: 'user', content: said }]
  for (let round = 0; ; round++) {
    // Read each round: a tool that appeared or went, or a permission changed, counts from the next request.
    const answer = await complete(ep, [...history, ...turn], round < maxToolRounds ? tools.functions() : [], signal)
    if (answer.calls.length === 0 || round >= maxToolRounds) {
      const reply = (answer.content ?? '').trim()
      turn.push({ role: 'assistant', content: reply })
      return { reply, messages: turn }
    }
    turn.push({ role: 'assistant', content: answer.content, tool_calls: answer.calls })
    for (const call of answer.calls) {
      const outcome = await tools.call(call.function.name, call.function.arguments ?? '', signal)
      turn.push({ role: 'tool', tool_call_id: call.id, content: outcome.output })
    }
  }
}
