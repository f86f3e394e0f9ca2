/**
 * The config's extensions for the CLI, which runs beside (not inside) an engine: they are
 * registered in a container of their own that holds the services an operator command has (real
 * settings, storage, security, clock and webhook outbox, a silent logger, a private metrics
 * registry, API routes nobody serves) and nothing that needs a running engine (the hub, agents,
 * TLS, listeners). The CLI builds agent
 * providers in it only to read their config schemas: a provider's factory must not connect
 * anywhere (its `start` does), and one that asks for an engine-only service is refused here.
 */
import { Registry } from 'prom-client'
import { ApiRoutes } from '../core/apiRoutes.js'
import { systemClock } from '../core/clock.js'
import type { ExtensionKind } from '../core/extension.js'
import { soleLeases } from '../core/leases.js'
import { createLogger } from '../core/log.js'
import { nobodyOnline } from '../core/presence.js'
import { ExtensionRegistry } from '../core/registry.js'
import { CliError, type Operator } from './context.js'

const offlineRegistry = (op: Operator, kind: ExtensionKind, name: string) =>
  new ExtensionRegistry(
    {
      settings: op.settings,
      log: createLogger('silent'),
      metrics: new Registry(),
      clock: systemClock,
      storage: op.storage,
      security: op.security,
      presence: nobodyOnline,
      webhookOutbox: op.webhookOutbox,
      apiRoutes: new ApiRoutes(),
      // The CLI never delivers webhooks (no plugin starts here): nothing to share.
      leases: soleLeases,
    },
    op.extensions.filter((e) => e.kind === kind && e.name === name),
  )

const build = <T>(registry: ExtensionRegistry, kind: ExtensionKind, name: string): T => {
  try {
    return registry.resolve<T>(kind, name)
  } catch (e) {
    throw new CliError(`the ${kind} ${name} needs a running engine to be built: ${(e as Error).message.split('\n')[0]}`)
  }
}

/** Any extension: one defined with `load` is imported here, by the command that needs it built. */
export const loadOfflineExtension = async <T>(op: Operator, kind: ExtensionKind, name: string): Promise<T> => {
  const registry = offlineRegistry(op, kind, name)
  await registry.load()
  return build<T>(registry, kind, name)
}
