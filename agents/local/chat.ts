/**
 * The `chat` brain of a local agent: an OpenAI-compatible `POST /chat/completions` (the
 * operator's llama.cpp server, Ollama or vLLM, named in `agents.local.chat`), given the agent's
 * tools as functions. Tool calls the model makes are carried out through `ctx.tools` and their
 * results sent back, for at most `MAX_TOOL_ROUNDS` rounds; the model's last text is the reply.
 * One request per round, not streamed: local models answer a voice turn in one short message,
 * and the reply is still spoken sentence by sentence.
 */
import type { AgentTools, ToolInfo } from '../../core/provider.js'

export const MAX_TOOL_ROUNDS = 3

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

/** A function name the API accepts (`^[a-zA-Z0-9_-]{1,64}$`) for each tool, unique. */
const functionNames = (tools: ReadonlyArray<ToolInfo>): Map<string, ToolInfo> => {
  const byName = new Map<string, ToolInfo>()
  for (const t of tools) {
    const base = t.name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 60)
    let name = base
    for (let n = 2; byName.has(name); n++) name = `${base}_${n}`
    byName.set(name, t)
  }
  return byName
}

const complete = async (ep: ChatEndpoint, messages: ChatMessage[], functions: Map<string, ToolInfo>, signal: AbortSignal) => {
  const body = {
    model: ep.model,
    messages,
    ...(functions.size > 0
      ? {
          tools: [...functions].map(([name, t]) => ({
            type: 'function',
            function: { name, description: t.description || t.tool, parameters: t.inputSchema },
          })),
        }
      : {}),
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
  tools: AgentTools,
  signal: AbortSignal,
  onToolCall?: (name: string, args: Record<string, unknown>, result: { isError: boolean; text: string }) => void,
): Promise<{ reply: string; messages: ChatMessage[] }> => {
  const turn: ChatMessage[] = [{ role: 'user', content: said }]
  const functions = functionNames(tools.list())
  for (let round = 0; ; round++) {
    const answer = await complete(ep, [...history, ...turn], round < MAX_TOOL_ROUNDS ? functions : new Map(), signal)
    if (answer.calls.length === 0 || round >= MAX_TOOL_ROUNDS) {
      const reply = (answer.content ?? '').trim()
      turn.push({ role: 'assistant', content: reply })
      return { reply, messages: turn }
    }
    turn.push({ role: 'assistant', content: answer.content, tool_calls: answer.calls })
    for (const call of answer.calls) {
      const tool = functions.get(call.function.name)
      let args: Record<string, unknown> = {}
      try {
        const parsed = JSON.parse(call.function.arguments || '{}') as unknown
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) args = parsed as Record<string, unknown>
      } catch {
        // arguments that are not JSON: the tool sees none, the model sees the error below
      }
      const result = tool ? await tools.call(tool.name, args) : { isError: true, text: `no tool named ${call.function.name}` }
      onToolCall?.(tool?.name ?? call.function.name, args, result)
      turn.push({ role: 'tool', tool_call_id: call.id, content: result.isError ? `error: ${result.text}` : result.text })
    }
  }
}
