/**
 * Fault containment for agent providers. Provider code runs in an async scope that names its
 * agent, and the scope follows every timer, socket and promise the provider creates from there.
 * An exception thrown later from such a callback — out of reach of any try/catch of ours — is
 * attributed to its agent by a process-level handler, which fails that agent instead of the
 * process. Errors outside any agent keep Node's default: the process exits, unless the embedder
 * listens for them too. (A bare microtask throw carries no async scope; the agent runtime guards
 * its own calls into provider code synchronously.)
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { Logger } from '../log.js'

export interface AgentScope {
  readonly agentId: string
  fail(error: unknown): void
}

const scope = new AsyncLocalStorage<AgentScope>()

/** Run provider code so that whatever it schedules stays attributable to `owner`. */
export const inAgentScope = <T>(owner: AgentScope, f: () => T): T => scope.run(owner, f)

/** The agent whose provider code is running now (its async scope), if any. */
export const currentAgentScope = (): AgentScope | undefined => scope.getStore()

type Kind = 'uncaughtException' | 'unhandledRejection'

let installs = 0
let logger: Logger | undefined

const handle = (kind: Kind) => (error: unknown) => {
  const owner = scope.getStore()
  if (owner) {
    logger?.error({ agentId: owner.agentId, kind, err: error }, 'agent provider fault contained; failing the agent')
    owner.fail(error)
    return
  }
  // Not an agent's: someone else listening (an embedder, a test runner) decides.
  if (process.listenerCount(kind) > 1) return
  process.stderr.write(`hark: ${kind}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
}

const onException = handle('uncaughtException')
const onRejection = handle('unhandledRejection')

/** Install the process handlers (once for any number of engines); returns the uninstall function. */
export const containAgentFaults = (log: Logger): (() => void) => {
  logger = log
  if (installs++ === 0) {
    process.on('uncaughtException', onException)
    process.on('unhandledRejection', onRejection)
  }
  let installed = true
  return () => {
    if (!installed) return
    installed = false
    if (--installs === 0) {
      process.off('uncaughtException', onException)
      process.off('unhandledRejection', onRejection)
    }
  }
}
