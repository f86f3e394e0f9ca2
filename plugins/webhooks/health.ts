/**
 * Endpoint health, kept by the delivery worker (delivery.ts) from each settled attempt: since when
 * an endpoint has been failing (`failingSince`, cleared by a success), and its disabling once every
 * attempt has failed for DISABLE_AFTER_FAILING_MS (3 days). The in-memory record changes at once;
 * the write to make is returned, to go with the attempt's outcome (attemptRecords.ts).
 */
import type { Logger } from '../../core/log.js'
import type { StorageShape } from '../../core/storage/storage.js'
import type { EndpointState } from './lanes.js'
import { DISABLE_AFTER_FAILING_MS } from './schedule.js'

/** Track how long the endpoint has been failing; the write to make, if any. */
export const trackHealth = (ep: EndpointState, success: boolean, at: number, storage: StorageShape, log: Logger): (() => void) | null => {
  const r = ep.record
  if (success) {
    if (r.failingSince === null) return null
    ep.record = { ...r, failingSince: null }
    return () => void storage.webhookEndpoints.update(r.workspaceId, r.webhookId, { failingSince: null }, at)
  }
  if (r.failingSince === null) {
    ep.record = { ...r, failingSince: at }
    return () => void storage.webhookEndpoints.update(r.workspaceId, r.webhookId, { failingSince: at }, at)
  }
  if (!r.enabled || at - r.failingSince < DISABLE_AFTER_FAILING_MS) return null
  const days = DISABLE_AFTER_FAILING_MS / 86_400_000
  const reason = `every delivery attempt failed for ${days} days (since ${new Date(r.failingSince).toISOString()})`
  ep.record = { ...r, enabled: false, disabledReason: reason }
  // No person did this, so it is no row of the audit log (core/people/audit.ts records what users
  // and the operator do): the engine's log carries the line, and the change feed the new state
  // (`webhook.updated`: the console, other nodes).
  log.warn({ audit: true, action: 'webhook.disabled', workspaceId: r.workspaceId, webhookId: r.webhookId, url: r.url, reason }, 'webhook endpoint disabled')
  return () => {
    const endpoint = storage.webhookEndpoints.update(r.workspaceId, r.webhookId, { enabled: false, disabledReason: reason }, at)
    if (endpoint) storage.feed.record({ kind: 'webhook.updated', workspaceId: r.workspaceId, subject: r.webhookId, at, endpoint })
  }
}
