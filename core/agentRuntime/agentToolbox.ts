/**
 * `ctx.tools` of a session: every source behind one AgentTools — the MCP tools of the devices in
 * the agent's room (deviceTools.ts), those of the MCP servers its config names
 * (mcpServerTools.ts) and the back-end functions it declares (functionTools.ts). Built in the thread that runs the session (the engine's, or a provider
 * worker's) from the session's config and the tool sources the engine resolved at dispatch
 * (`ToolSourcesSpec`: server settings, secrets included, which never enter a config). Names are
 * unique: an MCP server's `<server>/<tool>` wins over a device tool of the same full name (a
 * device whose client id is a server's name cannot stand in for the server); a function's name
 * holds no `/`, so it never meets the others.
 */
import type { AgentContext, AgentTools, ToolCallOptions, ToolInfo, ToolResult } from '../agentProvider.js'
import type { ServerEvent } from '../events.js'
import { DeviceTools } from './deviceTools.js'
import { FunctionTools, type FunctionEndpoint, type FunctionEntry } from './functionTools.js'
import { parseMcpServerSettings, type McpServerSettings } from './mcpServerSettings.js'
import type { McpServerTools } from './mcpServerTools.js'
import type { McpServerEntry } from './toolConfig.js'

/** What the engine resolves for an agent's tools at dispatch: plain data (it crosses to a provider worker). */
export interface ToolSourcesSpec {
  /** Settings (headers, network policy) of the MCP servers the agent's config names, by name. */
  readonly mcpServers: ReadonlyMap<string, McpServerSettings>
  /** Where the config's functions go (its functionsWebhookId resolved); null when it declares none. */
  readonly functions: FunctionEndpoint | null
}

export const NO_TOOL_SOURCES: ToolSourcesSpec = { mcpServers: new Map(), functions: null }

/** Where the engine's `ctx` carries the spec for a provider worker (not part of the provider contract). */
export const TOOL_SOURCES_SPEC = Symbol.for('hark.toolSourcesSpec')

/** The MCP servers a decoded config names (its `mcpServers` field, when its provider has one). */
export const mcpServersOf = (config: unknown): ReadonlyArray<McpServerEntry> => {
  const list = typeof config === 'object' && config !== null ? (config as { mcpServers?: unknown }).mcpServers : undefined
  return Array.isArray(list) ? (list as ReadonlyArray<McpServerEntry>) : []
}

/** The spec for an agent with `config`: the settings (`agents.mcpServers`) of the servers it names, and no others. */
export const toolSourcesFor = (
  config: unknown,
  mcpServersSetting: string,
  functionEndpoint: (webhookId: string | undefined) => FunctionEndpoint,
): ToolSourcesSpec => {
  const servers = mcpServersOf(config)
  const functions = functionsOf(config).length > 0 ? functionEndpoint((config as { functionsWebhookId?: string }).functionsWebhookId) : null
  if (servers.length === 0) return functions === null ? NO_TOOL_SOURCES : { mcpServers: new Map(), functions }
  const all = parseMcpServerSettings(mcpServersSetting)
  const mcpServers = new Map<string, McpServerSettings>()
  if (typeof all !== 'string') for (const s of servers) if (all.has(s.name)) mcpServers.set(s.name, all.get(s.name)!)
  return { mcpServers, functions }
}

/** The functions a decoded config declares. */
export const functionsOf = (config: unknown): ReadonlyArray<FunctionEntry> => {
  const list = typeof config === 'object' && config !== null ? (config as { functions?: unknown }).functions : undefined
  return Array.isArray(list) ? (list as ReadonlyArray<FunctionEntry>) : []
}

export class AgentToolbox implements AgentTools {
  readonly device: DeviceTools
  private mcp: McpServerTools | null = null
  private readonly functions: FunctionTools | null
  private readonly listeners = new Set<() => void>()
  private closed = false
  private readonly secretValues: ReadonlyArray<string>

  constructor(ctx: Pick<AgentContext, 'agentId' | 'room' | 'emit' | 'log'>, config: unknown, sources: ToolSourcesSpec) {
    this.device = new DeviceTools((to, payload) => ctx.emit({ kind: 'mcp', to, payload }))
    this.device.onChange(() => this.changed())
    const servers = mcpServersOf(config)
    const declared = functionsOf(config)
    this.functions = declared.length > 0 ? new FunctionTools(declared, sources.functions ?? { unavailable: 'no function endpoint' }, ctx) : null
    this.secretValues = [
      ...servers.flatMap((s) => Object.values(sources.mcpServers.get(s.name)?.headers ?? {})),
      ...(this.functions?.secrets() ?? []),
    ]
    // Declared functions are there from the start: told as a change once the session has subscribed.
    if (this.functions) queueMicrotask(() => this.changed())
    if (servers.length > 0) {
      // The SDK loads only for an agent with servers.
      void import('./mcpServerTools.js').then(({ McpServerTools }) => {
        if (this.closed) return
        this.mcp = new McpServerTools(servers, sources.mcpServers, ctx)
        this.mcp.onChange(() => this.changed())
      })
    }
  }

  list(): ReadonlyArray<ToolInfo> {
    const mcp = this.mcp?.list() ?? []
    const functions = this.functions?.list() ?? []
    if (mcp.length === 0 && functions.length === 0) return this.device.list()
    return [...functions, ...mcp, ...this.device.list().filter((t) => !this.mcp?.has(t.name))]
  }

  call(name: string, args: Readonly<Record<string, unknown>>, options?: ToolCallOptions): Promise<ToolResult> {
    if (this.functions?.has(name)) return this.functions.call(name, args, options)
    if (this.mcp?.has(name)) return this.mcp.call(name, args, options)
    return this.device.call(name, args, options)
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  secrets(): ReadonlyArray<string> {
    return this.secretValues
  }

  /** Every room event the session is given. */
  observe(event: ServerEvent): void {
    this.device.observe(event)
  }

  close(): void {
    this.closed = true
    this.device.close()
    this.mcp?.close()
    this.listeners.clear()
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
