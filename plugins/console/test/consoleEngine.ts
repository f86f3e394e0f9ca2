/**
 * A real engine with the console (and the REST API, and the echo agent for dispatches) on free
 * ports, plus helpers: users made as the operator would, signed-in console callers, and workspaces
 * with members in given roles.
 */
import { ManualClock } from '../../../core/clock.js'
import type { EngineConfig, EngineOptions } from '../../../core/index.js'
import { OPERATOR } from '../../../core/people/audit.js'
import type { Role } from '../../../core/people/roles.js'
import { startTestEngine } from '../../../core/test/helpers.js'
import { echoAgent } from '../../../agents/echo/index.js'
import { restPlugin } from '../../rest/index.js'
import { consolePlugin, type ConsolePlugin } from '../index.js'
import { ConsoleClient } from './consoleClient.js'

export const PASSWORD = 'correct horse battery'

export const startConsoleEngine = async (config: EngineConfig = {}, options: EngineOptions = {}) => {
  const t = await startTestEngine({ ...config, extensions: [consolePlugin, restPlugin, echoAgent, ...(config.extensions ?? [])] }, options)
  const plugin = t.engine.host.resolve<ConsolePlugin>('plugin', 'console')
  const { people } = plugin.services
  const base = `https://127.0.0.1:${t.engine.ports.console}`
  const client = () => new ConsoleClient(base, t.engine.host.tls.cert)
  const createUser = (email: string, password = PASSWORD, name: string | null = null) => people.createUser({ email, password, name }, OPERATOR)
  /** A new user, signed in. */
  const user = async (email: string, password = PASSWORD) => {
    const record = await createUser(email, password)
    const c = client()
    await c.signIn(email, password)
    return { record, client: c }
  }
  /** A workspace made by `admin` (who becomes its admin), with `members` added in their roles. */
  const workspace = (adminUserId: string, name = 'acme', members: ReadonlyArray<readonly [string, Role]> = []) => {
    const w = people.createWorkspace(adminUserId, name, OPERATOR)
    for (const [userId, role] of members) people.grant(w.workspaceId, userId, role, OPERATOR)
    return w.workspaceId
  }
  return { ...t, plugin, people, base, client, createUser, user, workspace }
}

export type ConsoleEngine = Awaited<ReturnType<typeof startConsoleEngine>>

/**
 * A console engine on a clock that moves only when the test says (expiries, throttles).
 * `advance` moves it firing every timer on the way; `jump` moves its wall time by hours or days
 * without firing them: the console's expiries (sessions, invitations, sign-in throttles) are
 * deadlines the engine clock's now() is compared with on each request, and an `advance` of days
 * would run the engine's own timers (the change poll, every 50 ms in tests) millions of times.
 */
export const startConsoleEngineOnManualClock = async (config: EngineConfig = {}) => {
  const clock = new ManualClock(Date.parse('2026-11-20T09:00:00Z'))
  const t = await startConsoleEngine(config, { clock })
  const jump = (ms: number) => clock.set(clock.now() + ms)
  return { t, clock, jump }
}
