/**
 * An MCP server for tests, built with the official SDK (its low-level `Server` and the streamable
 * HTTP transport, stateless: a server and a transport per request) on a free port of 127.0.0.1.
 * Tools are plain objects; a tool may hang (never answer). Records every call and the headers
 * each request came with; `close()` drops every connection (a server that went down).
 */
import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { Inbox } from './helpers.js'

export interface TestMcpTool {
  readonly description: string
  readonly inputSchema: Readonly<Record<string, unknown>>
  /** The result's text; a throw is a JSON-RPC error. */
  readonly call?: (args: Readonly<Record<string, unknown>>) => string
  /** Never answer. */
  readonly hang?: boolean
}

export class TestMcpServer {
  readonly calls = new Inbox<{ readonly name: string; readonly arguments: Readonly<Record<string, unknown>> }>()
  readonly requests = new Inbox<IncomingHttpHeaders>()

  private constructor(
    private readonly http: HttpServer,
    readonly url: string,
  ) {}

  static async start(tools: Readonly<Record<string, TestMcpTool>>): Promise<TestMcpServer> {
    let self: TestMcpServer | null = null
    const http = createServer((req, res) => {
      self?.requests.push(req.headers)
      const server = new Server({ name: 'hark-test-mcp', version: '1.0.0' }, { capabilities: { tools: {} } })
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: Object.entries(tools).map(([name, t]) => ({ name, description: t.description, inputSchema: t.inputSchema as { type: 'object' } })),
      }))
      server.setRequestHandler(CallToolRequestSchema, async (request) => {
        const tool = tools[request.params.name]
        const args = request.params.arguments ?? {}
        self?.calls.push({ name: request.params.name, arguments: args })
        if (!tool) throw new Error(`no tool ${request.params.name}`)
        if (tool.hang) await new Promise(() => {})
        return { content: [{ type: 'text', text: tool.call?.(args) ?? '' }] }
      })
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
      res.on('close', () => {
        void transport.close()
        void server.close()
      })
      void server.connect(transport).then(() => transport.handleRequest(req, res))
    })
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    self = new TestMcpServer(http, `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`)
    return self
  }

  /** Stop listening and drop every open connection. */
  async close(): Promise<void> {
    this.http.closeAllConnections()
    await new Promise<void>((resolve) => this.http.close(() => resolve()))
  }
}
