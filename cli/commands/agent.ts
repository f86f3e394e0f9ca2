/**
 * `hark agent list|say|interrupt|update|stop`: running agents, steered live. Unlike the operator
 * commands, which open the data directory, these ask a running engine through its REST API
 * (spec/agents.md, "Live control"; spec/rest.md): `--url` (HARK_URL; default the local engine's
 * REST port) with an API key of the workspace (`--api-key`, or HARK_API_KEY to keep it out of `ps`).
 * A refusal is printed as the API words it (`not_supported`, `agent_elsewhere`, …) with exit 1;
 * an engine that cannot be reached, exit 3.
 */
import type { Command } from 'commander'
import { CliError, output } from '../context.js'

interface RemoteOptions {
  readonly url?: string
  readonly apiKey?: string
  readonly json?: boolean
}

/** What `GET /agents` answers per agent (the fields printed; the JSON output keeps them all). */
interface AgentView {
  readonly agentId: string
  readonly room: string
  readonly provider: string
  readonly state: string
  readonly [field: string]: unknown
}

const DEFAULT_URL = 'http://127.0.0.1:8080'
const TIMEOUT_MS = 10_000

const withRemote = (cmd: Command): Command =>
  cmd
    .option('--url <url>', `the engine's REST base URL (HARK_URL; default ${DEFAULT_URL})`)
    .option('--api-key <key>', "an API key of the agent's workspace (HARK_API_KEY keeps it out of ps)")
    .option('--json', 'print exactly one JSON value on stdout')

/** One REST call; the parsed body of a 2xx answer, a CliError with the API's words otherwise. */
const call = async (opts: RemoteOptions, method: string, path: string, body?: unknown): Promise<unknown> => {
  const key = opts.apiKey ?? process.env.HARK_API_KEY
  if (!key) throw new CliError('an API key is needed: --api-key, or HARK_API_KEY', 2)
  const base = (opts.url ?? process.env.HARK_URL ?? DEFAULT_URL).replace(/\/+$/, '')
  let url: URL
  try {
    url = new URL(`${base}/api/v1${path}`)
  } catch {
    throw new CliError(`--url is not a URL: ${base}`, 2)
  }
  let res: Response
  try {
    res = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    })
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).name
    throw new CliError(`the engine at ${base} cannot be reached (${cause})`, 3)
  }
  const text = await res.text()
  let parsed: unknown = null
  try {
    parsed = text === '' ? null : JSON.parse(text)
  } catch {
    // not JSON: said below when it was a failure
  }
  if (!res.ok) {
    const error = (parsed as { error?: { message?: string; code?: string } } | null)?.error
    throw new CliError(error ? `${error.message} (${res.status} ${error.code ?? ''})`.replace(/ \)$/, ')') : `the engine answered HTTP ${res.status}`)
  }
  return parsed
}

const agentPath = (agentId: string) => `/agents/${encodeURIComponent(agentId)}`

const parseTools = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch (e) {
    throw new CliError(`--tools is not JSON: ${(e as Error).message}`, 2)
  }
}

export const agentCommands = (program: Command) => {
  const group = program.command('agent').description("running agents of a workspace, steered live through a running engine's REST API")

  withRemote(group.command('list').description('the running agents').option('--room <room>', 'only those in this room')).action(
    async (opts: RemoteOptions & { room?: string }) => {
      const query = opts.room === undefined ? '' : `?room=${encodeURIComponent(opts.room)}`
      const { agents } = (await call(opts, 'GET', `/agents${query}`)) as { agents: AgentView[] }
      output(opts, agents, () => agents.map((a) => `${a.agentId}\t${a.room}\t${a.provider}\t${a.state}`).join('\n') || '(no agents)')
    },
  )

  withRemote(
    group
      .command('say')
      .description('speak text now, or after what it is saying')
      .argument('<agentId>')
      .argument('<text>')
      .option('--interrupt', 'stop what it is saying first'),
  ).action(async (agentId: string, text: string, opts: RemoteOptions & { interrupt?: boolean }) => {
    const answer = await call(opts, 'POST', `${agentPath(agentId)}/say`, { text, ...(opts.interrupt ? { interrupt: true } : {}) })
    output(opts, answer, () => `${agentId}: accepted`)
  })

  withRemote(group.command('interrupt').description('stop what it is saying').argument('<agentId>')).action(async (agentId: string, opts: RemoteOptions) => {
    const answer = await call(opts, 'POST', `${agentPath(agentId)}/interrupt`)
    output(opts, answer, () => `${agentId}: interrupted`)
  })

  withRemote(
    group
      .command('update')
      .description('new instructions and/or tool permissions for the turns that follow')
      .argument('<agentId>')
      .option('--instructions <text>', 'the new instructions')
      .option('--tools <json>', 'the new tool permissions, whole: {"device": ["*/self.light.*"], "mcp": [...], "function": [...]}'),
  ).action(async (agentId: string, opts: RemoteOptions & { instructions?: string; tools?: string }) => {
    if (opts.instructions === undefined && opts.tools === undefined) throw new CliError('nothing to change: give --instructions and/or --tools', 2)
    const body = { ...(opts.instructions === undefined ? {} : { instructions: opts.instructions }), ...(opts.tools === undefined ? {} : { tools: parseTools(opts.tools) }) }
    const view = (await call(opts, 'PATCH', agentPath(agentId), body)) as AgentView
    output(opts, view, () => `${view.agentId}: updated`)
  })

  withRemote(group.command('stop').description('stop it: it leaves the room').argument('<agentId>')).action(async (agentId: string, opts: RemoteOptions) => {
    const answer = await call(opts, 'DELETE', agentPath(agentId))
    output(opts, answer, () => `${agentId}: stopped`)
  })
}
