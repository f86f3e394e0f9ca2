/**
 * A local stand-in for an operator's OpenAI-compatible chat server (llama.cpp, Ollama, vLLM) —
 * the only fake of the local agent's tests, since no model can be installed here. It answers
 * `POST /v1/chat/completions` (not streamed) from a script: first a tool call when the request
 * offers a tool whose name ends with the scripted one, then, once the tool's result is in the
 * conversation, a text reply that quotes it. Requests are kept for the test to read.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Inbox } from '../../../core/test/helpers.js'

export interface ChatRequest {
  readonly model: string
  readonly messages: Array<{ role: string; content: string | null; tool_call_id?: string; tool_calls?: unknown[] }>
  readonly tools?: Array<{ type: string; function: { name: string; description: string; parameters: unknown } }>
}

export class FakeChat {
  readonly requests = new Inbox<ChatRequest>()
  /** Call the offered tool whose name ends with this (null: answer at once). */
  callTool: string | null = null
  /** The reply; `{result}` is replaced by the last tool result. */
  reply = 'It is sunny.'

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {}

  static async start(): Promise<FakeChat> {
    let fake: FakeChat | null = null
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = []
      for await (const c of req) chunks.push(c as Buffer)
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end()
        return
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest
      fake!.requests.push(body)
      const lastTool = [...body.messages].reverse().find((m) => m.role === 'tool')
      const tool = fake!.callTool ? body.tools?.find((t) => t.function.name.endsWith(fake!.callTool!)) : undefined
      const message =
        tool && !lastTool
          ? { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: tool.function.name, arguments: '{}' } }] }
          : { role: 'assistant', content: fake!.reply.replace('{result}', lastTool?.content ?? '') }
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', model: body.model, choices: [{ index: 0, message, finish_reason: tool && !lastTool ? 'tool_calls' : 'stop' }] }))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    fake = new FakeChat(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`)
    return fake
  }

  stop(): Promise<void> {
    this.server.closeAllConnections()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}
