/**
 * REST and console schemas compiled on first use. fastify builds every route's validators and
 * serializers when it readies its routes; for Hark's REST API and console that was ~0.4 s of CPU
 * per engine start once the modules were loaded (of ~0.55 s), on every start of every node and
 * test engine, for routes most of which a given run never calls. The serializers stay fastify's
 * own (fast-json-stringify, with the scope's shared schemas) and are built on the first response
 * of their route and status; the validators (Ajv, validation.ts) on the route's first request.
 * Each compiler's own first compile is dear (Ajv's ~60 ms, fast-json-stringify's ~20 ms: their
 * code generation warming up): `warmSchemaCompilers` pays it at start with a small schema each,
 * so that a route's first call then costs its own compile, 2–10 ms on the engine's thread.
 * A schema fastify would have refused at start fails its route's first call instead (every route
 * is under test).
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { FastifyServerOptions } from 'fastify'
import { warmValidators } from './validation.js'

const fastifySerializers = SerializerSelector()

/** fastify's `schemaController` option: its default serializers, each built on first use. */
export const lazySerializers: FastifyServerOptions['schemaController'] = {
  compilersFactory: {
    buildSerializer: (externalSchemas: unknown, options: unknown) => {
      const compile = fastifySerializers(externalSchemas, options as Parameters<typeof fastifySerializers>[1])
      return (route: Parameters<typeof compile>[0]) => {
        let serialize: ReturnType<typeof compile> | undefined
        return (data: unknown) => (serialize ??= compile(route))(data)
      }
    },
  },
}

let warm = false

/** Warm Ajv and fast-json-stringify once per process (the HTTP servers call it as they are made). */
export const warmSchemaCompilers = (): void => {
  if (warm) return
  warm = true
  warmValidators()
  // A $ref to a shared schema and a date-time: the paths the REST schemas take.
  const shared = { $id: 'warm', type: 'object', properties: { at: { type: 'string', format: 'date-time' }, n: { type: ['integer', 'null'] } } }
  const route = { type: 'object', properties: { items: { type: 'array', items: { $ref: 'warm#' } }, next: { type: ['string', 'null'] } } }
  fastifySerializers({ warm: shared }, {})({ schema: route, method: 'GET', url: '/', httpStatus: '200' })({ items: [{ at: '2026-01-01T00:00:00.000Z', n: 1 }], next: null })
}
