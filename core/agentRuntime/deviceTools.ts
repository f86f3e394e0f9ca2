/**
 * `ctx.tools` for a session: the MCP tools of the devices in the agent's room, over the JSON-RPC
 * pass-through every MCP-capable terminal has (spec/xiaozhi.md §MCP): `agent.event {kind:"mcp",
 * to, payload}` out, `participant.event {kind:"mcp", payload}` back. A device that says
 * `mcp.ready` (when it joins, and again whenever an agent joins) is asked `initialize`, then
 * `tools/list` page by page; its tools are named `<clientId>/<tool>` and go when it leaves.
 *
 * Device answers reach every member of the room, other agents included: request ids are numbers
 * (the firmware accepts no other) from a random base per session, and an answer counts only from
 * the device it was asked of. Built in the thread that runs the session (the engine's, or a
 * provider worker's), from the session's own `emit` and the room events it is given.
 */
import type { AgentTools, ToolCallOptions, ToolInfo, ToolResult } from '../agentProvider.js'
import type { ServerEvent } from '../events.js'

export const DEFAULT_TOOL_TIMEOUT_MS = 5000
/** Pages of `tools/list` read per device (a device that pages forever stops here). */
const MAX_PAGES = 8
/** Tools kept per device. */
const MAX_TOOLS_PER_DEVICE = 128

interface Pending {
  readonly clientId: string
  readonly resolve: (answer: { result?: unknown; error?: { message?: unknown } } | { failed: NonNullable<ToolResult['error']> }) => void
  readonly timer: NodeJS.Timeout | undefined
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The text parts of MCP content, joined. */
const textOf = (content: ReadonlyArray<Readonly<Record<string, unknown>>>): string =>
  content
    .filter((c) => c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text as string)
    .join('\n')

export class DeviceTools implements AgentTools {
  private readonly tools = new Map<string, ToolInfo>()
  private readonly pending = new Map<number, Pending>()
  private readonly listeners = new Set<() => void>()
  /** Each device's current discovery (a newer `mcp.ready` supersedes it). */
  private readonly discovery = new Map<string, number>()
  private nextId = (Math.floor(Math.random() * 0x7fff) + 1) * 0x10000
  private closed = false

  constructor(private readonly send: (clientId: string, payload: Readonly<Record<string, unknown>>) => void) {}

  list(): ReadonlyArray<ToolInfo> {
    return [...this.tools.values()]
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  async call(name: string, args: Readonly<Record<string, unknown>>, options: ToolCallOptions = {}): Promise<ToolResult> {
    const tool = this.tools.get(name)
    if (!tool) return { isError: true, text: `no tool named ${name}`, content: [], error: 'unknown_tool' }
    const answer = await this.request(tool.clientId, 'tools/call', { name: tool.tool, arguments: args }, options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS)
    if ('failed' in answer) {
      const why = { timeout: 'the tool did not answer in time', gone: 'the device left the room', stopped: 'the agent stopped', unknown_tool: '' }[answer.failed]
      return { isError: true, text: why, content: [], error: answer.failed }
    }
    if (answer.error !== undefined) return { isError: true, text: String(answer.error?.message ?? 'tool error'), content: [] }
    const result = isObject(answer.result) ? answer.result : {}
    const content = Array.isArray(result.content) ? (result.content.filter(isObject) as Array<Readonly<Record<string, unknown>>>) : []
    return { isError: result.isError === true, text: textOf(content), content }
  }

  /** Every room event the session is given. */
  observe(event: ServerEvent): void {
    if (this.closed) return
    if (event.type === 'participant.left') return this.forget(event.participant.id)
    if (event.type !== 'participant.event') return
    const kind = event.event.kind
    if (kind === 'mcp.ready') void this.discover(event.participantId)
    else if (kind === 'mcp') this.answer(event.participantId, event.event.payload)
  }

  /** The session ended: pending calls end with `stopped`. */
  close(): void {
    this.closed = true
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer)
      this.pending.delete(id)
      p.resolve({ failed: 'stopped' })
    }
    this.listeners.clear()
  }

  private async discover(clientId: string): Promise<void> {
    const run = this.nextId
    this.discovery.set(clientId, run)
    const init = await this.request(clientId, 'initialize', {
      protocolVersion: '2024-11-05',
      capabilities: {},
      clientInfo: { name: 'hark-agent', version: '1' },
    })
    if ('failed' in init || init.error !== undefined || this.discovery.get(clientId) !== run) return
    const found: ToolInfo[] = []
    let cursor: string | undefined
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await this.request(clientId, 'tools/list', cursor ? { cursor } : {})
      if ('failed' in answer || answer.error !== undefined || this.discovery.get(clientId) !== run) return
      const result = isObject(answer.result) ? answer.result : {}
      for (const t of Array.isArray(result.tools) ? result.tools : []) {
        if (!isObject(t) || typeof t.name !== 'string' || t.name.length === 0 || found.length >= MAX_TOOLS_PER_DEVICE) continue
        found.push({
          name: `${clientId}/${t.name}`,
          source: 'device',
          tool: t.name,
          clientId,
          description: typeof t.description === 'string' ? t.description : '',
          inputSchema: isObject(t.inputSchema) ? t.inputSchema : { type: 'object' },
        })
      }
      cursor = typeof result.nextCursor === 'string' && result.nextCursor.length > 0 ? result.nextCursor : undefined
      if (!cursor) break
    }
    for (const [name, tool] of this.tools) if (tool.clientId === clientId) this.tools.delete(name)
    for (const tool of found) this.tools.set(tool.name, tool)
    this.changed()
  }

  private request(
    clientId: string,
    method: string,
    params: Readonly<Record<string, unknown>>,
    timeoutMs = DEFAULT_TOOL_TIMEOUT_MS,
  ): Promise<{ result?: unknown; error?: { message?: unknown } } | { failed: NonNullable<ToolResult['error']> }> {
    if (this.closed) return Promise.resolve({ failed: 'stopped' })
    const id = this.nextId++
    if (this.nextId >= 0x7fffffff) this.nextId = 0x10000
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.pending.delete(id)) resolve({ failed: 'timeout' })
      }, timeoutMs)
      this.pending.set(id, { clientId, resolve, timer })
      this.send(clientId, { jsonrpc: '2.0', id, method, params })
    })
  }

  private answer(from: string, payload: unknown): void {
    if (!isObject(payload) || typeof payload.id !== 'number') return
    const p = this.pending.get(payload.id)
    if (!p || p.clientId !== from) return
    this.pending.delete(payload.id)
    clearTimeout(p.timer)
    p.resolve({ result: payload.result, ...(isObject(payload.error) ? { error: payload.error } : {}) })
  }

  private forget(clientId: string): void {
    this.discovery.delete(clientId)
    let changed = false
    for (const [name, tool] of this.tools) {
      if (tool.clientId !== clientId) continue
      this.tools.delete(name)
      changed = true
    }
    for (const [id, p] of this.pending) {
      if (p.clientId !== clientId) continue
      clearTimeout(p.timer)
      this.pending.delete(id)
      p.resolve({ failed: 'gone' })
    }
    if (changed) this.changed()
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
