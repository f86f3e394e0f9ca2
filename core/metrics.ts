/**
 * Prometheus metrics (prom-client). Each engine owns its registry, so several engines can live
 * in one process (tests, embedders) without clashing names.
 */
import { Context, Layer } from 'effect'
import { Registry, collectDefaultMetrics } from 'prom-client'

export class Metrics extends Context.Service<Metrics, Registry>()('hark/Metrics') {}

export const metricsLayer = Layer.sync(Metrics, () => {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'hark_process_' })
  return registry
})
