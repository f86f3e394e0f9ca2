/**
 * The REST plugin's settings and the engine services it is given (by injection, in plugin.ts);
 * its route modules take them as one object.
 */
import * as Schema from 'effect/Schema'
import type { Registry } from 'prom-client'
import type { ApiRoutes } from '../../core/apiRoutes.js'
import { defineSettings, setting } from '../../core/extension.js'
import type { Logger } from '../../core/log.js'
import type { OperationServices } from '../../core/operations/services.js'

/** Where the REST API lives on the REST port. */
export const API_PREFIX = '/api/v1'

const PositiveInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

/** Shares the `rest` node with the engine's own rest.port and rest.bodyLimitBytes (the REST-port server is core's). */
export const restSettings = defineSettings('rest', {
  rateLimitMax: setting(PositiveInt, 1200, 'requests allowed per workspace per window'),
  rateLimitWindowSeconds: setting(PositiveInt, 60, 'the rate-limit window'),
})

export type RestSettings = typeof restSettings.Type

/** The workspace operations' services (core/operations), and the plugin's own settings, log and metrics. */
export interface RestServices extends OperationServices {
  readonly rest: RestSettings
  readonly log: Logger
  readonly metrics: Registry
  /** Resources other plugins add under /api/v1 (registered inside this plugin's scope). */
  readonly apiRoutes: ApiRoutes
}
