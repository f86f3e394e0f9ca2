/**
 * Prometheus metrics (prom-client). Each engine owns its registry, so several engines can live
 * in one process (tests, embedders) without clashing names.
 */
import * as Context from 'effect/Context'
import * as Layer from 'effect/Layer'
import { Registry, collectDefaultMetrics } from 'prom-client'

export class Metrics extends Context.Service<Metrics, Registry>()('hark/Metrics') {}

export const metricsLayer = Layer.sync(Metrics, () => {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'hark_process_' })
  return registry
})
