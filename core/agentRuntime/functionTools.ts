/**
 * The back end's own functions as tools: a config declares `functions: [{name, description,
 * parameters}]` and `functionsWebhookId` (one of the workspace's webhook endpoints); a call is a
 * POST of `{agentId, room, name, arguments, callId}` to that endpoint's URL, signed the Standard
 * Webhooks way with its signing secret(s) (`webhook-id` = the callId), under the webhooks' SSRF
 * rules (every address the connection uses checked: addressGuard.ts, `webhooks.allowPrivateNetworks`).
 * A 2xx JSON answer goes back to the model (a JSON string as its text, anything else as JSON);
 * another status, a body that is not JSON, a redirect, a refused address or no answer in time is an
 * error result. The endpoint (URL, secrets) is resolved by the engine at dispatch (the webhooks
 * plugin answers it) and handed to the session as plain data, never through a config.
 */
import { randomUUID } from 'node:crypto'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import type { AgentContext, ToolCallOptions, ToolInfo, ToolResult } from '../agentProvider.js'

/** A function as a config declares it. */
export interface FunctionEntry {
  readonly name: string
  readonly description?: string
  readonly parameters: Readonly<Record<string, unknown>>
}

/** Where an agent's functions go: resolved by the engine at dispatch, or why they cannot be called. */
export type FunctionEndpoint =
  | {
      readonly url: string
      /** whsec_ secrets: each adds a signature (both during a rotation's overlap). */
      readonly secrets: ReadonlyArray<string>
      readonly allowPrivateNetworks: boolean
      /** Extra trusted CA certificates (PEM) for the endpoint's TLS (setting agents.functionsCaFile). */
      readonly ca?: string
    }
  | { readonly unavailable: string }

/** An answer's body read at most this long. */
const MAX_ANSWER_BYTES = 256 * 1024
const DEFAULT_TIMEOUT_MS = 5000

export class FunctionTools {
  private readonly tools = new Map<string, ToolInfo>()

  constructor(
    functions: ReadonlyArray<FunctionEntry>,
    private readonly endpoint: FunctionEndpoint,
    private readonly ctx: Pick<AgentContext, 'agentId' | 'room'>,
  ) {
    for (const f of functions) {
      this.tools.set(f.name, { name: f.name, source: 'function', tool: f.name, clientId: '', description: f.description ?? '', inputSchema: f.parameters })
    }
  }

  list(): ReadonlyArray<ToolInfo> {
    return [...this.tools.values()]
  }

  has(name: string): boolean {
    return this.tools.has(name)
  }

  secrets(): ReadonlyArray<string> {
    return 'secrets' in this.endpoint ? this.endpoint.secrets : []
  }

  async call(name: string, args: Readonly<Record<string, unknown>>, options: ToolCallOptions = {}): Promise<ToolResult> {
    const fail = (text: string, error?: ToolResult['error']): ToolResult => ({ isError: true, text, content: [], ...(error ? { error } : {}) })
    if (!this.tools.has(name)) return fail(`no function named ${name}`, 'unknown_tool')
    if ('unavailable' in this.endpoint) return fail(this.endpoint.unavailable)
    const endpoint = this.endpoint
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    const callId = `fc_${randomUUID()}`
    const body = JSON.stringify({ agentId: this.ctx.agentId, room: this.ctx.room, name, arguments: args, callId })
    const [{ Webhook }, guard] = await Promise.all([import('standardwebhooks'), import('../webhooks/addressGuard.js')])
    const url = new URL(endpoint.url)
    const policy = { allowPrivateNetworks: endpoint.allowPrivateNetworks }
    if (url.protocol !== 'https:' && !policy.allowPrivateNetworks) return fail('the function endpoint must be https (http only with webhooks.allowPrivateNetworks)')
    let addresses: ReadonlyArray<{ address: string; family: 4 | 6 }>
    try {
      addresses = await guard.resolveAllowed(guard.hostOf(url), policy, guard.systemResolver)
    } catch (e) {
      return fail(`the function endpoint is not allowed: ${(e as Error).message}`)
    }
    // The connection uses the very addresses checked: no second lookup a rebinding DNS could answer differently.
    const lookup = ((_host: string, opts: { all?: boolean }, cb: (...a: unknown[]) => void) => {
      if (opts.all) cb(null, addresses.map((a) => ({ address: a.address, family: a.family })))
      else cb(null, addresses[0]!.address, addresses[0]!.family)
    }) as LookupFunction
    const at = new Date()
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'Hark-Functions/1',
      'webhook-id': callId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': endpoint.secrets.map((s) => new Webhook(s).sign(callId, at, body)).join(' '),
    }
    return new Promise<ToolResult>((resolve) => {
      let settled = false
      const finish = (r: ToolResult) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        req.destroy()
        resolve(r)
      }
      const options = { method: 'POST', headers, lookup, ...(endpoint.ca ? { ca: endpoint.ca } : {}) }
      const req = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, (res: IncomingMessage) => {
        const status = res.statusCode ?? 0
        const chunks: Buffer[] = []
        let read = 0
        res.on('data', (chunk: Buffer) => {
          read += chunk.length
          if (read > MAX_ANSWER_BYTES) return finish(fail(`the function endpoint's answer is longer than ${MAX_ANSWER_BYTES} bytes`))
          chunks.push(chunk)
        })
        res.on('error', () => finish(fail('the function endpoint aborted its answer')))
        res.on('end', () => {
          if (status >= 300 && status < 400) return finish(fail(`the function endpoint answered a redirect (HTTP ${status}), which is not followed`))
          if (status < 200 || status >= 300) return finish(fail(`the function endpoint answered HTTP ${status}`))
          let answer: unknown
          try {
            answer = JSON.parse(Buffer.concat(chunks).toString('utf8'))
          } catch {
            return finish(fail("the function endpoint's answer is not JSON"))
          }
          const text = typeof answer === 'string' ? answer : JSON.stringify(answer)
          finish({ isError: false, text, content: [{ type: 'text', text }] })
        })
      })
      const timer = setTimeout(() => finish(fail('the function did not answer in time', 'timeout')), timeoutMs)
      req.on('error', (e: NodeJS.ErrnoException) => finish(fail(`the function endpoint cannot be reached (${e.code ?? e.message})`)))
      req.end(body)
    })
  }
}
