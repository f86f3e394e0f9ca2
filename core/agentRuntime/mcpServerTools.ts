/**
 * The tools of the MCP servers an agent's config names (`mcpServers: [{name, url, allowedTools?}]`),
 * over the streamable HTTP transport, with the official MCP TypeScript SDK as the client. The SDK
 * is imported when the first agent with servers starts, never with the engine or the CLI
 * (cli/startup.test.ts). A server's headers and network policy come from the setting
 * `agents.mcpServers` (mcpServerSettings.ts), handed in by the engine: never from the config.
 *
 * Every request goes through the webhooks' SSRF guard (core/webhooks/addressGuard.ts): the host
 * must resolve to public addresses only unless the server's `allowPrivateNetworks` is set. A server
 * that is refused, down or slow at the start offers no tools (the room hears a `tools.error` agent
 * event saying why); one that fails later gives the model an error result for that call.
 * Tools are named `<server>/<tool>`; `allowedTools` narrows what a server offers to this agent.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { AgentContext, ToolCallOptions, ToolInfo, ToolResult } from '../agentProvider.js'
import type { McpServerSettings } from './mcpServerSettings.js'
import { toolAllowed, type McpServerEntry } from './toolConfig.js'

/** Connecting and listing one server's tools must finish within this. */
export const MCP_CONNECT_TIMEOUT_MS = 10_000
const DEFAULT_CALL_TIMEOUT_MS = 5000
const MAX_PAGES = 8
const MAX_TOOLS_PER_SERVER = 128

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The text parts of MCP content joined; a result with none reads as its structured content. */
const textOf = (result: Record<string, unknown>, content: ReadonlyArray<Readonly<Record<string, unknown>>>): string => {
  const text = content.filter((c) => c.type === 'text' && typeof c.text === 'string').map((c) => c.text as string)
  if (text.length > 0) return text.join('\n')
  return result.structuredContent !== undefined ? JSON.stringify(result.structuredContent) : ''
}

interface Connected {
  readonly client: Client
}

export class McpServerTools {
  private readonly tools = new Map<string, ToolInfo>()
  private readonly clients = new Map<string, Connected>()
  private readonly listeners = new Set<() => void>()
  private closed = false

  constructor(
    servers: ReadonlyArray<McpServerEntry>,
    private readonly settings: ReadonlyMap<string, McpServerSettings>,
    private readonly ctx: Pick<AgentContext, 'emit' | 'log'>,
  ) {
    for (const entry of servers) void this.connect(entry)
  }

  list(): ReadonlyArray<ToolInfo> {
    return [...this.tools.values()]
  }

  has(name: string): boolean {
    return this.tools.has(name)
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  async call(name: string, args: Readonly<Record<string, unknown>>, options: ToolCallOptions = {}): Promise<ToolResult> {
    const tool = this.tools.get(name)
    const server = tool?.server === undefined ? undefined : this.clients.get(tool.server)
    if (!tool || !server) return { isError: true, text: `no tool named ${name}`, content: [], error: 'unknown_tool' }
    const timeout = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS
    try {
      const result = (await server.client.callTool({ name: tool.tool, arguments: { ...args } }, undefined, { timeout })) as Record<string, unknown>
      const content = Array.isArray(result.content) ? (result.content.filter(isObject) as Array<Readonly<Record<string, unknown>>>) : []
      return { isError: result.isError === true, text: textOf(result, content), content }
    } catch (e) {
      if (this.closed) return { isError: true, text: 'the agent stopped', content: [], error: 'stopped' }
      const { McpError, ErrorCode } = await import('@modelcontextprotocol/sdk/types.js')
      if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) return { isError: true, text: 'the tool did not answer in time', content: [], error: 'timeout' }
      return { isError: true, text: `the MCP server ${tool.server} failed: ${String((e as Error).message ?? e).slice(0, 300)}`, content: [] }
    }
  }

  close(): void {
    this.closed = true
    this.listeners.clear()
    for (const { client } of this.clients.values()) void client.close().catch(() => {})
    this.clients.clear()
  }

  private async connect(entry: McpServerEntry): Promise<void> {
    const policy = {
      allowPrivateNetworks: this.settings.get(entry.name)?.allowPrivateNetworks === true,
      allowedBy: `"allowPrivateNetworks": true for ${entry.name} in the setting agents.mcpServers`,
    }
    const headers = this.settings.get(entry.name)?.headers ?? {}
    let client: Client | null = null
    try {
      const [{ Client }, { StreamableHTTPClientTransport }, guard] = await Promise.all([
        import('@modelcontextprotocol/sdk/client/index.js'),
        import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
        import('../webhooks/addressGuard.js'),
      ])
      const url = new URL(entry.url)
      const host = guard.hostOf(url)
      if (url.protocol === 'http:' && !policy.allowPrivateNetworks) throw new guard.AddressNotAllowed(`http:// is allowed only with ${policy.allowedBy}; use https://`)
      // The guard before every request, not only now: a host re-pointed at an internal address later is refused too.
      const guarded: typeof fetch = async (input, init) => {
        await guard.resolveAllowed(host, policy, guard.systemResolver)
        return fetch(input, init)
      }
      await guard.resolveAllowed(host, policy, guard.systemResolver)
      if (this.closed) return
      client = new Client({ name: 'hark-agent', version: '1' })
      const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { ...headers } }, fetch: guarded })
      await client.connect(transport, { timeout: MCP_CONNECT_TIMEOUT_MS })
      const found: ToolInfo[] = []
      let cursor: string | undefined
      for (let page = 0; page < MAX_PAGES && !this.closed; page++) {
        const answer = await client.listTools(cursor ? { cursor } : {}, { timeout: MCP_CONNECT_TIMEOUT_MS })
        for (const t of answer.tools) {
          if (found.length >= MAX_TOOLS_PER_SERVER) break
          if (entry.allowedTools && !toolAllowed({ mcp: entry.allowedTools }, 'mcp', t.name)) continue
          found.push({
            name: `${entry.name}/${t.name}`,
            source: 'mcp',
            tool: t.name,
            clientId: '',
            server: entry.name,
            description: t.description ?? '',
            inputSchema: isObject(t.inputSchema) ? t.inputSchema : { type: 'object' },
          })
        }
        cursor = answer.nextCursor
        if (!cursor) break
      }
      if (this.closed) {
        void client.close().catch(() => {})
        return
      }
      this.clients.set(entry.name, { client })
      for (const tool of found) this.tools.set(tool.name, tool)
      this.changed()
    } catch (e) {
      if (client) void client.close().catch(() => {})
      if (this.closed) return
      const error = `the MCP server ${entry.name} is not available: ${String((e as Error).message ?? e).slice(0, 300)}`
      this.ctx.log.warn({ server: entry.name, error }, 'MCP server not available')
      this.ctx.emit({ kind: 'tools.error', source: 'mcp', server: entry.name, error })
    }
  }

  private changed(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener()
      } catch {
        // a listener's fault is its own
      }
    }
  }
}
